/** Finds the sandbox example the docs print, marked so that tests can hold the docs to it. */
import { existsSync, readFileSync } from 'node:fs';

const MARKER = '<!-- typed-example -->';

/** The code block right after the marker, from whichever of the docs holds it. */
export function typedExample(): { source: string; code: string } {
  const found = ['README.md', 'docs/testing.md']
    .filter((file) => existsSync(file))
    .flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const at = text.indexOf(MARKER);
      if (at === -1) return [];
      const block = /^\s*```(?:js|ts|javascript|typescript)\n([\s\S]*?)```/.exec(text.slice(at + MARKER.length));
      if (block === null) throw new Error(`${file}: ${MARKER} is not followed by a js or ts code block`);
      return [{ source: file, code: block[1]! }];
    });
  if (found.length !== 1) throw new Error(`expected ${MARKER} in exactly one of README.md, docs/testing.md; found ${found.length}`);
  return found[0]!;
}
