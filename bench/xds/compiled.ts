// Bench processes run the compiled JavaScript (`npm run build`'s dist/), as
// `npm start` runs the hub: under tsx every module is transformed on load and
// every function expression wrapped in a `__name` call, and the hub's heap
// carries tsx's source maps (10 MiB more at S = 1,000), so a bench of the
// sources would measure tsx too. `--tsx` (XDS_BENCH_TSX=1) runs the sources.
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
let built = false;

/** Where `script` (a bench .ts file) runs from, and the node flags it needs: dist/ after one build per bench run, or the source under tsx. */
export function benchScript(
  script: string,
  tsx = process.env['XDS_BENCH_TSX'] === '1',
): { path: string; execArgv: string[] } {
  if (tsx) return { path: script, execArgv: ['--import', 'tsx'] };
  if (!built) {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json')],
      {
        stdio: 'inherit',
      },
    );
    built = true;
  }
  return { path: join(ROOT, 'dist', relative(ROOT, script)).replace(/\.ts$/, '.js'), execArgv: [] };
}
