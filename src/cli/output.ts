import { createRequire } from 'node:module';
import { Chalk, type ChalkInstance } from 'chalk';
import type TableType from 'cli-table3';
import type { ReportedError } from './errors.js';
import type { JqFilter } from './jq.js';

/** How a result reads for a human; `--json` ignores it and prints the data. */
export type View =
  | { kind: 'record'; rows: Array<[label: string, value: unknown]> }
  | { kind: 'table'; head: string[]; rows: unknown[][]; empty: string }
  | { kind: 'lines'; lines: string[] };

/** A record row only when the wire object has the field at all (omitted, not null), spread into `rows`. */
export const rowIfPresent = (label: string, value: unknown): Array<[label: string, value: unknown]> =>
  value === undefined ? [] : [[label, value]];

export interface OutputOptions {
  /** Results as JSON (--json, or --jq). */
  json: boolean;
  /** Errors as one JSON line: with --json only; --jq alone is read by a person, as in gh. */
  jsonErrors: boolean;
  color: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

// cli-table3 (and the string-width stack under it) is loaded only when a table is drawn on a terminal:
// most invocations never draw one, and loading it costs start-up time.
const require = createRequire(import.meta.url);
const loadTable = (): typeof TableType => require('cli-table3') as typeof TableType;

const cell = (value: unknown, placeholder: string): string => {
  if (value === null || value === undefined || value === '') return placeholder;
  if (Array.isArray(value)) return value.length === 0 ? placeholder : value.join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/**
 * The one place that writes results. On a terminal: tables and aligned key-values; piped: plain
 * tab-separated lines without decoration; with `--json`: the data object on stdout and nothing else.
 */
export class Output {
  readonly json: boolean;
  /** Colours for stdout; level 0 when colour is off or stdout is not a terminal. */
  readonly out: ChalkInstance;
  /** Colours for stderr. */
  readonly err: ChalkInstance;
  /** `--jq EXPR`, once loaded: results and stream lines go through it instead of being printed whole. */
  private jq: JqFilter | undefined;

  constructor(private readonly options: OutputOptions) {
    this.json = options.json;
    this.out = new Chalk({ level: options.color && options.stdoutIsTTY ? 1 : 0 });
    this.err = new Chalk({ level: options.color && options.stderrIsTTY ? 1 : 0 });
  }

  get stderrIsTTY(): boolean {
    return this.options.stderrIsTTY;
  }

  /** From here on, JSON output is filtered by `--jq` (which implies --json). */
  useJq(filter: JqFilter): void {
    this.jq = filter;
  }

  /** Prints a command's result. */
  result(data: unknown, view: View): void {
    if (this.json) {
      if (this.jq !== undefined) return this.options.stdout(this.jq(data));
      const text = this.options.stdoutIsTTY ? JSON.stringify(data, null, 2) : JSON.stringify(data);
      this.options.stdout(`${text}\n`);
      return;
    }
    this.options.stdout(this.render(view));
  }

  /**
   * One line of a stream (`svc webhooks listen`, `svc dev`), printed as it happens: the text, or with --json
   * the object as one line of JSON (through --jq when given).
   */
  streamLine(text: string, data: unknown): void {
    if (!this.json) return this.options.stdout(`${text}\n`);
    this.options.stdout(this.jq === undefined ? `${JSON.stringify(data)}\n` : this.jq(data));
  }

  /** Human-only remark on stderr (pagination, what happened); silent with --json. */
  note(text: string): void {
    if (!this.json) this.options.stderr(`${this.err.dim(text)}\n`);
  }

  /** A warning on stderr, shown even with --json because it concerns the invocation. */
  warn(text: string): void {
    this.options.stderr(`${this.err.yellow('warning:')} ${text}\n`);
  }

  /** Raw progress text on stderr (spinner frames); callers check `stderrIsTTY` first. */
  progress(text: string): void {
    this.options.stderr(text);
  }

  /**
   * Reports a failure on stderr. With --json it is one JSON line `{"error":{code,message,hint}}`, so a
   * script can parse it while stdout stays empty.
   */
  error(reported: Pick<ReportedError, 'code' | 'message' | 'hint'>): void {
    if (this.options.jsonErrors) {
      const body = { code: reported.code, message: reported.message, ...(reported.hint ? { hint: reported.hint } : {}) };
      this.options.stderr(`${JSON.stringify({ error: body })}\n`);
      return;
    }
    this.options.stderr(`${this.err.red('error:')} ${reported.message}\n`);
    if (reported.hint) this.options.stderr(`${this.err.dim('hint:')} ${reported.hint}\n`);
  }

  private render(view: View): string {
    const tty = this.options.stdoutIsTTY;
    switch (view.kind) {
      case 'lines':
        return view.lines.map((line) => `${line}\n`).join('');
      case 'record': {
        if (!tty) return view.rows.map(([label, value]) => `${label}: ${cell(value, '')}\n`).join('');
        const width = Math.max(...view.rows.map(([label]) => label.length));
        return view.rows
          .map(([label, value]) => `${this.out.bold(label.padEnd(width))}  ${cell(value, '-')}\n`)
          .join('');
      }
      case 'table': {
        if (view.rows.length === 0) return tty ? `${this.out.dim(view.empty)}\n` : '';
        if (!tty) return view.rows.map((row) => `${row.map((v) => cell(v, '')).join('\t')}\n`).join('');
        // cli-table3 colours headers itself; switch that off so chalk alone decides (NO_COLOR, --no-color).
        const Table = loadTable();
        const table = new Table({
          head: view.head.map((h) => this.out.bold(h)),
          style: { head: [], border: [] },
        });
        for (const row of view.rows) table.push(row.map((v) => cell(v, '-')));
        return `${table.toString()}\n`;
      }
    }
  }
}
