import { CliError, EXIT } from './errors.js';

/** `--jq EXPR` applied to one result: what to print (possibly nothing), each output on a line of its own. */
export type JqFilter = (value: unknown) => string;

const MANUAL = 'see the jq manual: https://jqlang.org/manual/';

/**
 * Loads jq for `--jq EXPR`, as gh offers it. jq-wasm is jq 1.8 compiled to WebAssembly: nothing to install
 * and no binary to download. It is imported only here, only when `--jq` is given, so no other invocation pays
 * for loading it (this small module itself is part of the CLI's main bundle: a lazy chunk of its own would
 * split the modules it shares with the rest into more files that every start-up reads). The expression is compiled once against `null` before the command runs, so a syntax
 * error is a usage error (exit 2) before anything is sent, created or deleted.
 */
export async function loadJqFilter(expression: string): Promise<JqFilter> {
  const { loadJq, JqError } = await import('jq-wasm');
  const jq = await loadJq();
  const check = jq.raw(null, expression, ['-c']);
  // jq's exit status 3 is a compile error; other failures on null say nothing about the real result.
  if (check.exitCode === 3) throw new CliError('usage_error', `invalid --jq expression: ${jqMessage(check.stderr)}`, MANUAL, EXIT.usage);
  return (value) => {
    let outputs: unknown[];
    try {
      // A string input is read as JSON text, so every value goes in as its JSON.
      outputs = jq.json(JSON.stringify(value) ?? 'null', expression);
    } catch (error) {
      if (!(error instanceof JqError)) throw error;
      throw new CliError('usage_error', `--jq failed on the result (the command itself succeeded): ${jqMessage(error.stderr)}`, MANUAL, EXIT.usage);
    }
    // As gh prints them: a string raw, anything else as JSON.
    return outputs.map((output) => `${typeof output === 'string' ? output : JSON.stringify(output)}\n`).join('');
  };
}

/** jq's own words, without its "jq: error:" prefix and the closing count of compile errors. */
const jqMessage = (stderr: string): string =>
  stderr
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/\njq: \d+ compile errors?\s*$/, '')
    .trim();
