/** A database URL as it may be shown: the password replaced, everything else kept for diagnosis. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database URL';
  }
}
