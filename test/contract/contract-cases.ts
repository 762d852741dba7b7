/**
 * The contract suite: one set of cases, run against every SvcClient implementation (STYLE.md point 4).
 * Each case makes its own workspace(s), so cases share a target but never data.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { accountAndWorkspaceCases } from './cases/account-workspace-cases.js';
import { authIsolationCases } from './cases/auth-isolation-cases.js';
import { chatCases } from './cases/chat-cases.js';
import { errorCases } from './cases/error-cases.js';
import { fileCases } from './cases/file-cases.js';
import { sendCases } from './cases/send-cases.js';
import { simCases } from './cases/sim-cases.js';
import type { ContractTarget, MakeTarget } from './contract-target.js';

/** A group of cases; `target()` is valid inside the cases (it is built in beforeAll). */
export type CaseGroup = (target: () => ContractTarget) => void;

const GROUPS: CaseGroup[] = [sendCases, errorCases, chatCases, fileCases, accountAndWorkspaceCases, simCases, authIsolationCases];

/** Registers the whole contract suite under `name`, against the target `makeTarget` builds. */
export function defineContract(name: string, makeTarget: MakeTarget): void {
  describe(`contract: ${name}`, () => {
    let current: ContractTarget | undefined;
    beforeAll(async () => {
      current = await makeTarget();
    });
    afterAll(async () => {
      await current?.close();
    });
    const target = (): ContractTarget => {
      if (current === undefined) throw new Error('contract target is not ready');
      return current;
    };
    for (const group of GROUPS) group(target);
  });
}
