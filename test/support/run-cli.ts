import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import type { CliIo, InterruptSignal, PromptQuestion } from '../../src/cli/io.js';
import type { SvcClient } from '../../src/client/client.js';
import type { ClientConfig } from '../../src/client/create-client.js';
import { fakeClient, fakeFactory } from './fake-client.js';

/** What one in-process `svc` run produced. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON. */
  json: <T = unknown>() => T;
  /** The client configurations the run asked for. */
  configs: ClientConfig[];
  /** The questions the run asked. */
  questions: PromptQuestion[];
}

export interface RunOptions {
  client?: SvcClient;
  env?: Record<string, string | undefined>;
  /** Terminal on stdin and stdout (and stderr); default false, like a script. */
  tty?: boolean;
  /** Answers to prompts, in order; a prompt with no answer left fails the test. */
  answers?: string[];
  /** Extra IO members (openEngine, serve, onInterrupt, ...). */
  io?: Partial<CliIo>;
}

/** A fresh temporary directory. */
export const tempDir = (prefix = 'svc-cli-'): string => mkdtempSync(join(tmpdir(), prefix));

/**
 * Runs `svc ...args` in process with captured output. Profiles live in a fresh temporary SVC_CONFIG_DIR and
 * the data directory in a fresh SVC_HOME unless `env` says otherwise, so no test touches the real home.
 */
export async function runSvc(args: string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const questions: PromptQuestion[] = [];
  const answers = [...(options.answers ?? [])];
  const factory = fakeFactory(options.client ?? fakeClient());
  const tty = options.tty ?? false;
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    env: { SVC_CONFIG_DIR: tempDir('svc-conf-'), SVC_HOME: tempDir('svc-home-'), HOME: tempDir('svc-user-'), ...options.env },
    prompt: async (question) => {
      questions.push(question);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected prompt: ${question.message}`);
      return answer;
    },
    createClient: factory.create,
    sleep: async () => {},
    ...options.io,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T, configs: factory.configs, questions };
}

/** An interrupt source a test can fire, standing in for SIGINT/SIGTERM of the binary. */
export function interrupts(): { onInterrupt: NonNullable<CliIo['onInterrupt']>; fire: (signal: InterruptSignal) => void; count: () => number } {
  const handlers = new Set<(signal: InterruptSignal) => void>();
  return {
    onInterrupt: (handler) => {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    fire: (signal) => {
      for (const handler of [...handlers]) handler(signal);
    },
    count: () => handlers.size,
  };
}
