/** Where owner notifications are e-mailed: an SMTP URL (it may carry a password) and an optional sender. */
export interface SmtpSettings {
  /** `smtp://user:pass@host:port` or `smtps://...`; never printed as given. */
  url: string;
  /** The From address; defaults to the SMTP user when that is an address, else `svc@<this host>`. */
  from?: string | undefined;
}

/** The URL with its password replaced by `***`, for "mailing via ..." lines and logs. */
export function maskSmtpUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid SMTP URL)';
  }
}

/** Removes the URL's password from any text (an error message from the mail library, say) before it is logged. */
export function scrubSmtpSecret(text: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password.length === 0 ? text : text.split(password).join('***');
}
