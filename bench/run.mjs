// Builds each bench/*.bench.ts for Node with Vite (production code, no test transforms), runs it in a
// fresh process and prints one JSON document with every result. Usage: npm run bench [-- name-filter]
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'vite'

const root = join(import.meta.dirname, '..')
const outDir = join(root, 'node_modules', '.bench')
const filter = process.argv[2] ?? ''
const benches = readdirSync(join(root, 'bench'))
  .filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
  .sort()

const results = []
for (const file of benches) {
  const name = file.replace('.bench.ts', '')
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    build: {
      ssr: join('bench', file),
      outDir,
      emptyOutDir: false,
      minify: false,
      rolldownOptions: { output: { entryFileNames: `${name}.mjs` } },
    },
  })
  const run = spawnSync(process.execPath, ['--expose-gc', join(outDir, `${name}.mjs`)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (run.status !== 0) {
    console.error(`bench ${name} failed`)
    process.exit(1)
  }
  const lines = run.stdout.trim().split('\n')
  results.push(JSON.parse(lines.at(-1)))
}
console.log(JSON.stringify({ node: process.version, results }, null, 2))
