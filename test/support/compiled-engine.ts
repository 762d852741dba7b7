import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE_DIRS = ['wire', 'engine', 'runtime', 'store', 'network', 'workers', 'client', 'partner', 'webhooks'];

/**
 * Transpiles the engine's sources (no type check) into `outDir`, so code outside vitest's transform,
 * such as a worker thread, can import `outDir/runtime/create-engine.js`. node_modules is linked beside it.
 */
export function compileEngine(outDir: string, repoRoot = resolve(import.meta.dirname, '../..')): string {
  const src = join(repoRoot, 'src');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of SOURCE_DIRS.flatMap((d) => walk(join(src, d))).filter((f) => f.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    const target = join(outDir, relative(src, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}');
  symlinkSync(join(repoRoot, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return outDir;
}
