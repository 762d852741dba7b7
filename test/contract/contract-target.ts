/**
 * What a contract case needs from an implementation of SvcClient: fresh isolated workspaces, a client for an
 * arbitrary token, and a way to follow a download link. `targets.ts` builds one for the local engine and
 * one for the HTTP client against a real server; `contract-cases.ts` runs the same cases against both.
 */
import { expect } from 'vitest';
import type { SvcClient } from '../../src/client/client.js';
import type { MessageDto, MessageStatus } from '../../src/wire/types.js';
import { isSvcError, type ErrorCode } from '../../src/wire/errors.js';

/** A workspace made for one case: its own token, client and connected sim account (the default sender). */
export interface TestWorkspace {
  id: number;
  token: string;
  client: SvcClient;
  accountPhone: string;
  /** A phone number no other case of this target uses (sim state such as "unreachable" is per number). */
  newPhone(): string;
}

export interface WorkspaceOptions {
  quota?: number;
}

/** One implementation of SvcClient under test, with the admin side it needs for setup. */
export interface ContractTarget {
  /** Creates a workspace (Business plan, no send spacing, so sends finish within a poll) and connects an account. */
  workspace(options?: WorkspaceOptions): Promise<TestWorkspace>;
  /** A client opened with `token` exactly as a user would; the local client refuses a bad token on open. */
  connect(token: string): Promise<SvcClient>;
  /** Follows a temporary_download_url (over HTTP for the HTTP target, through the engine for the local one). */
  download(url: string): Promise<{ mimetype: string; content: Buffer }>;
  close(): Promise<void>;
}

export type MakeTarget = () => Promise<ContractTarget>;

let phoneCounter = 0;

/** A valid international number, unique within this test process. */
export const uniquePhone = (prefix: string): string => {
  phoneCounter += 1;
  return `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(phoneCounter).padStart(5, '0')}`;
};

/** Awaits `promise` and expects it to reject with an SvcError of `code`. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected SvcError ${code}`).toBeDefined();
  if (!isSvcError(caught)) throw caught;
  expect(caught.code).toBe(code);
}

/** Polls a message until it reaches `status` (the target's workers send it in the background). */
export async function waitForStatus(client: SvcClient, uid: string, status: MessageStatus, timeoutMs = 5000): Promise<MessageDto> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const message = await client.getMessage(uid);
    if (message.status === status) return message;
    if (message.status === 'Sent' || message.status === 'Failed' || Date.now() > deadline) {
      throw new Error(`message ${uid} is ${message.status}, expected ${status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
