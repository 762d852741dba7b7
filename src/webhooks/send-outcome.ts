// What any webhook sender shares (the timeout, how an error reads; the outcome itself is a wire type): kept apart
// from undici so loading it is cheap.

/** docs/api-behaviour.md: a receiver must answer within 5 seconds. */
export const WEBHOOK_TIMEOUT_MS = 5000;

/** "connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)": the message plus the most specific code found. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const codes: string[] = [];
  let message = error.message;
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    // Only system-style codes (ECONNRESET, UND_ERR_SOCKET); catalogue codes like validation_error add nothing.
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) codes.push(code);
    // undici wraps socket errors ("fetch failed", "other side closed"); the cause says more.
    if (current !== error && current.message && !message.includes(current.message)) message += `: ${current.message}`;
  }
  const code = codes.find((c) => !c.startsWith('UND_ERR')) ?? codes[0];
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
