// Builds each bench/*.bench.ts with Vite (production code, no test transforms), runs it in a fresh
// Node process — and the benches in BROWSER_BENCHES also (or, BROWSER_ONLY, only) in Chromium — measures bundle sizes and the
// cold start of a page (bench/cold-start) and the devtools' cost to a page (bench/devtools), and prints one JSON document with every result.
// Usage: npm run bench [-- name-filter] [--turns N] (--turns: the long-session benches' conversation length)
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from '@playwright/test'
import { build } from 'vite'
import { chromiumLaunchOptions } from '../e2e/browser/find.mjs'

const BROWSER_BENCHES = [
  'stream-throughput',
  'tool-loop',
  'chat-burst',
  'memory-turn',
  'session-turn',
  'retrieval',
  'wllama',
  'long-session-llamacpp',
]
// Benches that need a browser (IndexedDB, llama.cpp's wasm): not run in Node.
const BROWSER_ONLY = ['memory-turn', 'retrieval', 'wllama', 'long-session-llamacpp']
const WLLAMA_WASM = join(import.meta.dirname, '..', 'node_modules', '@wllama', 'wllama', 'esm', 'wasm', 'wllama.wasm')
const BENCH_PAGE = 'http://localhost/bench'

const root = join(import.meta.dirname, '..')
const outDir = join(root, 'node_modules', '.bench')
const args = process.argv.slice(2)
const turnsAt = args.indexOf('--turns')
const turns = turnsAt < 0 ? undefined : args.splice(turnsAt, 2)[1]
const filter = args[0] ?? ''
const benches = readdirSync(join(root, 'bench'))
  .filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
  .filter((file) => !BROWSER_ONLY.includes(file.replace('.bench.ts', '')))
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
    env: turns === undefined ? process.env : { ...process.env, BENCH_TURNS: turns },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (run.status !== 0) {
    console.error(`bench ${name} failed`)
    process.exit(1)
  }
  const lines = run.stdout.trim().split('\n')
  results.push({ ...JSON.parse(lines.at(-1)), runtime: `Node ${process.version}` })
}
for (const name of BROWSER_BENCHES.filter((bench) => bench.includes(filter))) {
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir: join(outDir, 'browser'),
      emptyOutDir: false,
      minify: true,
      lib: { entry: join('bench', `${name}.bench.ts`), formats: ['es'], fileName: () => `${name}.js` },
      // One file: an inline module script cannot import chunks.
      rolldownOptions: { output: { codeSplitting: false } },
    },
  })
  const browser = await chromium.launch(chromiumLaunchOptions())
  try {
    const page = await browser.newPage()
    // A cross-origin isolated page reads performance.now() at 5 µs instead of 100 µs.
    await page.route(BENCH_PAGE, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>bench</title>',
        headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
      }),
    )
    // llama.cpp's wasm, served the way an app serves it (bench/wllama.bench.ts).
    await page.route(`${BENCH_PAGE}/wllama.wasm`, (route) =>
      route.fulfill({ contentType: 'application/wasm', body: readFileSync(WLLAMA_WASM) }),
    )
    await page.goto(BENCH_PAGE)
    if (turns !== undefined) await page.evaluate((given) => (globalThis.benchTurns = given), turns)
    const reported = new Promise((resolve, reject) => {
      page.on('console', (message) => message.text().startsWith('{"bench"') && resolve(message.text()))
      page.on('pageerror', reject)
    })
    await page.addScriptTag({ type: 'module', content: readFileSync(join(outDir, 'browser', `${name}.js`), 'utf8') })
    results.push({ ...JSON.parse(await reported), runtime: `Chromium ${browser.version()}` })
  } finally {
    await browser.close()
  }
}
// What an app pays for in its first chunk, measured from the built package as the size gate of
// `npm test` measures it (scripts/size.mjs).
if ('bundle-size'.includes(filter)) {
  const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (built.status !== 0) {
    console.error('npm run build failed')
    process.exit(1)
  }
  const { measureSizes } = await import('../scripts/size.mjs')
  const what = 'minified + gzip KB from dist/, first chunk vs chunks loaded on demand; peer dependencies not counted'
  results.push({ bench: 'bundle-size', what, sizes: await measureSizes() })
}
// The first message of a page, from the packed package, in Chromium: its own runner (bench/cold-start).
if ('cold-start'.includes(filter)) {
  const run = spawnSync(process.execPath, [join(root, 'bench', 'cold-start', 'run.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (run.status !== 0) {
    console.error('bench cold-start failed')
    process.exit(1)
  }
  results.push(JSON.parse(run.stdout.trim().split('\n').at(-1)))
}
// The devtools' cost to the page they watch, closed vs open, in Chromium: its own runner (bench/devtools).
if ('devtools'.includes(filter)) {
  const run = spawnSync(process.execPath, [join(root, 'bench', 'devtools', 'run.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (run.status !== 0) {
    console.error('bench devtools failed')
    process.exit(1)
  }
  results.push(JSON.parse(run.stdout.trim().split('\n').at(-1)))
}
console.log(JSON.stringify({ node: process.version, results }, null, 2))
