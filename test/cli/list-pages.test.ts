import { describe, expect, it } from 'vitest';
import type { Page } from '../../src/wire/types.js';
import { fakeClient, sampleFile } from '../support/fake-client.js';
import { runSvc } from '../support/run-cli.js';

/** Three pages of files: 2, 2 and 1 items. */
const threePages = async (page: number): Promise<Page<ReturnType<typeof sampleFile>>> => {
  const sizes = [2, 2, 1];
  const items = Array.from({ length: sizes[page - 1] ?? 0 }, (_, i) => sampleFile({ uid: `file_${page}_${i}` }));
  return { items, page, has_more_pages: page < sizes.length };
};

describe('list commands: --page and --all', () => {
  it('--all walks every page into one list of the usual shape', async () => {
    const client = fakeClient({ overrides: { listFiles: threePages } });
    const run = await runSvc(['files', 'list', '--all', '--json'], { client });
    expect(run.code).toBe(0);
    const all = run.json<Page<{ uid: string }>>();
    expect(all.items.map((f) => f.uid)).toEqual(['file_1_0', 'file_1_1', 'file_2_0', 'file_2_1', 'file_3_0']);
    expect(all).toMatchObject({ page: 3, has_more_pages: false });
  });

  it('without --all one page, and a hint naming --all when more exist; both together are a usage error', async () => {
    const client = fakeClient({ overrides: { listFiles: threePages } });
    const one = await runSvc(['files', 'list'], { client });
    expect(one.stdout.trim().split('\n')).toHaveLength(2);
    expect(one.stderr).toContain('svc files list --page 2 (or --all for every page)');
    const both = await runSvc(['files', 'list', '--all', '--page', '2'], { client });
    expect(both.code).toBe(2);
  });

  it('every paged list takes --all', async () => {
    for (const argv of [['chats', 'list'], ['chats', 'messages', '7'], ['templates', 'list']]) {
      const run = await runSvc([...argv, '--all', '--json']);
      expect(run.code, argv.join(' ')).toBe(0);
      expect(run.json(), argv.join(' ')).toMatchObject({ has_more_pages: false });
    }
  });
});
