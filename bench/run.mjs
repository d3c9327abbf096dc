// Builds each bench/*.bench.ts with Vite (production code, no test transforms), runs it in a fresh
// Node process — and the benches in BROWSER_BENCHES also in Chromium — and prints one JSON document
// with every result. Usage: npm run bench [-- name-filter]
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromium } from '@playwright/test'
import { build } from 'vite'
import { chromiumLaunchOptions } from '../e2e/browser/find.mjs'

const BROWSER_BENCHES = ['stream-throughput', 'tool-loop']
const BENCH_PAGE = 'http://localhost/bench'

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
    await page.goto(BENCH_PAGE)
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
// What an app pays for in its first chunk (minified + gzip): lazily loaded chunks (ajv, the
// interpreting validator, the devtools panel) are reported apart; peer dependencies are not counted.
const SIZES = {
  'ChatClient + ScriptedChatModel': `import { ChatClient, ScriptedChatModel } from '../../../src/index'\nconsole.log(ChatClient, ScriptedChatModel)`,
  'ChatClient + defineTool (tool loop)': `import { ChatClient, defineTool } from '../../../src/index'\nconsole.log(ChatClient, defineTool)`,
  'ChatClient + tools + OpenAIChatModel + ObserverAdvisor': `import { ChatClient, defineTool, OpenAIChatModel, ObserverAdvisor } from '../../../src/index'\nconsole.log(ChatClient, defineTool, OpenAIChatModel, ObserverAdvisor)`,
  'everything in advisor-chain': `export * from '../../../src/index'`,
  'advisor-chain/devtools entry': `export * from '../../../devtools/index'`,
}
if ('bundle-size'.includes(filter)) {
  const sizeDir = join(outDir, 'size')
  mkdirSync(sizeDir, { recursive: true })
  const sizes = {}
  for (const [label, source] of Object.entries(SIZES)) {
    const entry = join(sizeDir, `${Object.keys(sizes).length}.ts`)
    writeFileSync(entry, source)
    const output = await build({
      root,
      configFile: false,
      logLevel: 'warn',
      build: {
        write: false,
        minify: true,
        lib: { entry, formats: ['es'], fileName: 'entry' },
        // Peer dependencies: the app has them anyway.
        rolldownOptions: { external: [/^react($|\/)/, /^react-dom($|\/)/, /^zustand($|\/)/, '@mlc-ai/web-llm'] },
      },
    })
    const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => result.output)
    const gzip = (chunk) => gzipSync(chunk.type === 'chunk' ? chunk.code : chunk.source).length
    const kb = (bytes) => Math.round(bytes / 102.4) / 10
    // The entry and what it imports statically; everything else loads on demand.
    const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]))
    const first = chunks.filter((chunk) => chunk.type === 'chunk' && chunk.isEntry)
    for (const chunk of first)
      for (const imported of chunk.imports.map((name) => byName.get(name)).filter(Boolean))
        if (!first.includes(imported)) first.push(imported)
    sizes[label] = {
      firstChunkKBGzip: kb(first.reduce((sum, chunk) => sum + gzip(chunk), 0)),
      lazyChunksKBGzip: kb(
        chunks.filter((chunk) => !first.includes(chunk)).reduce((sum, chunk) => sum + gzip(chunk), 0),
      ),
    }
  }
  results.push({ bench: 'bundle-size', what: 'minified + gzip, first chunk vs chunks loaded on demand', sizes })
}
console.log(JSON.stringify({ node: process.version, results }, null, 2))
