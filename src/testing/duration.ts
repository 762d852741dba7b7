const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `'15m'`, `'2s'`, `'1h30m'`, `'500ms'`, `'7d'`, or a number of milliseconds as it is. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`a duration must be 0 or more milliseconds, got ${value}`);
    return value;
  }
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value.replace(/\s+/g, '')) {
    throw new RangeError(`cannot read the duration ${JSON.stringify(value)}; write e.g. '15m', '2s', '1h30m' or '500ms'`);
  }
  return parts.reduce((ms, [, amount, unit]) => ms + Number(amount) * (UNITS[unit as string] as number), 0);
}
