import { InvalidArgumentError } from 'commander';

/** Commander argument parser: an integer >= 1 (ids, pages). */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

/** Commander argument parser: an integer >= 0 (quotas, ports, intervals). */
export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number (0 or more)');
  return Number(value);
}

/** Commander argument parser: a port to listen on, 0 for a free one. */
export function port(value: string): number {
  const n = nonNegativeInt(value);
  if (n > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return n;
}

/** Commander argument parser: a non-negative number of seconds, fractions allowed. */
export function seconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds');
  return n;
}

/** Commander argument parser: comma-separated seconds ("5,30") turned into milliseconds. */
export function secondsListToMs(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => part === '')) throw new InvalidArgumentError('expected seconds separated by commas, e.g. 5,30');
  return parts.map((part) => Math.round(seconds(part) * 1000));
}

/** Commander argument parser: an http(s) URL, kept as written. */
/** A PostgreSQL connection URL (`postgres://` or `postgresql://`); svc's other store is a data directory. */
export function postgresUrl(value: string): string {
  if (!isPostgresUrl(value)) {
    throw new InvalidArgumentError('expected a PostgreSQL URL such as postgres://svc@127.0.0.1:5432/svc (for SQLite, use --data DIR)');
  }
  return value;
}

const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\/[^\s]+$/i.test(value);

export function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as http://127.0.0.1:8080/api');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http or https URL');
  return value;
}
