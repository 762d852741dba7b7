import { afterAll, beforeAll, describe } from 'vitest';
import type { ContractTarget, MakeTarget } from '../contract/contract-target.js';
import { makeHttpTarget, makeLocalTarget, STORES } from '../contract/targets.js';
import { webhookCases } from './webhook-contract-cases.js';

// The webhook client methods against both SvcClient implementations (STYLE.md point 4), on both stores.
const targets = STORES.flatMap((store): Array<[string, MakeTarget]> => [
  [`local on ${store}`, () => makeLocalTarget({ store })],
  [`http on ${store}`, () => makeHttpTarget(undefined, { store })],
]);
for (const [name, make] of targets) {
  describe(`webhook contract: ${name}`, () => {
    let current: ContractTarget | undefined;
    beforeAll(async () => {
      current = await make();
    });
    afterAll(async () => {
      await current?.close();
    });
    webhookCases(() => {
      if (current === undefined) throw new Error('target not ready');
      return current;
    });
  });
}
