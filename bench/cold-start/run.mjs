// Cold start: the first message of a page, from the call to the first token, in headless Chromium on
// production Vite builds of four tiny apps (apps/): a hand-written fetch loop, the AI SDK, and
// advisor-chain installed from its packed tarball, streamed and with .call(). One chat turn with one
// tool round; every file and every model response is delayed by DELAY_MS; the call is made
// CALL_AFTER_MS after load; each run in a fresh browser context, on a fresh server.
// Prints a table on stderr and one JSON line on stdout.
// Usage: node bench/cold-start/run.mjs, or npm run bench -- cold-start (COLD_START_RUNS=n: n runs)
/* global window, performance -- in the functions that run in the page (page.evaluate) */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { URL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { chromium } from '@playwright/test'
import { chromiumLaunchOptions } from '../../e2e/browser/find.mjs'
import { columnsOf, isModelRequest, isScript } from './columns.mjs'
import { ANSWER, MODEL_PATH } from './model-script.mjs'
import { round, summarize, tableText } from './report.mjs'
import { startServer } from './server.mjs'

const RUNS = Number(process.env.COLD_START_RUNS ?? 5)
const DELAY_MS = 50
const CALL_AFTER_MS = 1500
/** After the answer: for the last model response's timing entry, and anything the page loads just after. */
const SETTLE_MS = 300
const APPS = [
  { name: 'hand', label: 'hand-written fetch loop' },
  { name: 'ai-sdk', label: 'AI SDK 7 streamText' },
  { name: 'advisor-chain-stream', label: 'advisor-chain stream + observer' },
  { name: 'advisor-chain-call', label: 'advisor-chain call + observer', wholeAnswer: true },
]

const root = join(import.meta.dirname, '..', '..')
const here = import.meta.dirname
// Everything this bench installs and builds stays in its own node_modules, which every tool ignores.
const modules = join(here, 'node_modules')
const work = join(modules, '.cold-start')
const distOf = (name) => join(work, 'dist', name)

function run(what, command, args, options = {}) {
  console.error(`cold-start: ${what}`)
  // A child's output goes to stderr: stdout carries only the JSON.
  const result = spawnSync(command, args, { cwd: here, encoding: 'utf8', stdio: ['ignore', 2, 2], ...options })
  if (result.status !== 0) throw new Error(`cold-start: ${what} failed (${command} ${args.join(' ')})`)
  return result
}

const npmQuiet = ['--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline']

/** The apps' own dependencies at the versions of package-lock.json; installed again when it changes. */
function installDependencies() {
  const lock = createHash('sha256')
    .update(readFileSync(join(here, 'package-lock.json')))
    .digest('hex')
  const stamp = join(modules, '.cold-start-lock')
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return
  run('npm ci (the versions of bench/cold-start/package-lock.json)', 'npm', ['ci', ...npmQuiet])
  writeFileSync(stamp, lock)
}

/** npm pack of the repository (its prepack builds the library), installed here as an app installs it. */
function installPackedPackage() {
  const packDir = join(work, 'pack')
  rmSync(packDir, { recursive: true, force: true })
  mkdirSync(packDir, { recursive: true })
  const packed = run(
    'npm pack (prepack builds the library)',
    'npm',
    ['pack', '--json', '--pack-destination', packDir],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 2],
    },
  )
  // The prepack build prints too (with colour codes, which hold '['): the JSON starts on a line of its own.
  const [tarball] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[$/m)))
  rmSync(join(modules, 'advisor-chain'), { recursive: true, force: true })
  run(`install ${tarball.filename}`, 'npm', ['install', '--no-save', ...npmQuiet, join(packDir, tarball.filename)])
}

/** Type-checks the apps against what is installed, then builds each with `vite build` (production). */
function buildApps() {
  run('type-check the apps', join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(here, 'apps', 'tsconfig.json')])
  // Built from a copy, next to a page written here: an index.html in the repository would be one
  // more entry for the dev server of the repository to scan.
  const sources = join(work, 'apps')
  rmSync(sources, { recursive: true, force: true })
  cpSync(join(here, 'apps'), sources, { recursive: true })
  for (const { name } of APPS) {
    writeFileSync(join(sources, name, 'index.html'), page(name))
    run(`vite build ${name}`, join(modules, '.bin', 'vite'), [
      'build',
      join(sources, name),
      '--outDir',
      distOf(name),
      '--emptyOutDir',
      // Errors only: the AI SDK's chunk is over Vite's size warning, and the bench reports sizes itself.
      '--logLevel',
      'error',
    ])
  }
}

/** The app's page: its script, and no favicon request. */
const page = (name) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>${name}</title>
    <link rel="icon" href="data:," />
    <script type="module" src="./main.ts"></script>
  </head>
  <body></body>
</html>
`

/** Gzipped KB of the built JS files a page requested. */
function gzipKB(name, paths) {
  const bytes = paths.reduce((sum, path) => sum + gzipSync(readFileSync(join(distOf(name), path))).length, 0)
  return bytes / 1024
}

const versionOf = (name) => JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')).version
const pathOf = (url) => new URL(url).pathname

/** One run of one app: a fresh server and a fresh browser context (nothing cached). */
async function measure(browser, app) {
  const server = await startServer({ root: distOf(app.name), delayMs: DELAY_MS })
  const context = await browser.newContext()
  const tab = await context.newPage()
  const errors = []
  tab.on('pageerror', (error) => errors.push(String(error)))
  tab.on('console', (message) => message.type() === 'error' && errors.push(message.text()))
  try {
    await tab.goto(`${server.origin}/`, { waitUntil: 'load' })
    const turn = await tab.evaluate(async (callAfterMs) => {
      const [navigation] = performance.getEntriesByType('navigation')
      while (!(navigation.loadEventEnd > 0)) await new Promise((resolve) => setTimeout(resolve, 5))
      await new Promise((resolve) => setTimeout(resolve, navigation.loadEventEnd + callAfterMs - performance.now()))
      if (!window.runTurn) throw new Error('the app did not set window.runTurn')
      return window.runTurn()
    }, CALL_AFTER_MS)
    await tab.waitForTimeout(SETTLE_MS)
    const resources = await tab.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map(({ name, startTime, responseEnd }) => ({ name, startTime, responseEnd })),
    )

    const problems = [...server.problems, ...errors]
    if (turn.answer !== ANSWER)
      problems.push(`the answer was ${JSON.stringify(turn.answer)}, not ${JSON.stringify(ANSWER)}`)
    if (!(turn.firstTextAt >= turn.callAt)) problems.push('no text arrived')
    const scripts = resources.filter(isScript)
    const served = server.arrivals.filter(({ path }) => path.endsWith('.js')).length
    if (scripts.length !== served)
      problems.push(`the page timed ${scripts.length} JS requests, the server had ${served}`)
    const posted = server.arrivals.filter(({ method, path }) => method === 'POST' && path === MODEL_PATH).length
    if (posted !== 2 || resources.filter(isModelRequest).length !== 2)
      problems.push(`${posted} model requests reached the server, not 2`)
    if (problems.length > 0) throw new Error(`cold-start: ${app.name}:\n  ${problems.join('\n  ')}`)

    return {
      columns: columnsOf(resources, turn),
      scripts: scripts.map(({ name }) => pathOf(name)),
      timeline: resources
        .map(({ name, startTime, responseEnd }) => ({
          path: pathOf(name),
          start: round(startTime - turn.callAt),
          end: round(responseEnd - turn.callAt),
        }))
        .sort((a, b) => a.start - b.start),
    }
  } finally {
    await context.close()
    await server.close()
  }
}

const started = Date.now()
installDependencies()
installPackedPackage()
buildApps()

const browser = await chromium.launch(chromiumLaunchOptions())
const chromiumVersion = browser.version()
const runs = Object.fromEntries(APPS.map(({ name }) => [name, []]))
try {
  // One discarded run of each app first: the browser's own first-use costs are no page's.
  for (const app of APPS) await measure(browser, app)
  // The apps take turns, so that a slow moment of the machine is shared out.
  for (let index = 0; index < RUNS; index++) {
    for (const app of APPS) runs[app.name].push(await measure(browser, app))
    console.error(`cold-start: run ${index + 1} of ${RUNS} done`)
  }
} finally {
  await browser.close()
}

const jsKB = Object.fromEntries(APPS.map(({ name }) => [name, gzipKB(name, runs[name][0].scripts)]))
const summary = summarize(APPS, runs, jsKB)
const seconds = Math.round((Date.now() - started) / 1000)
console.error(
  `\ncold start, Chromium ${chromiumVersion}: production Vite builds, ${DELAY_MS} ms before each file and each ` +
    `model response, the call ${CALL_AFTER_MS / 1000} s after load, ${RUNS} runs in fresh contexts ` +
    `(min / median / max)\n\n${tableText(APPS, summary)}\n${seconds} s in all\n`,
)
console.log(
  JSON.stringify({
    bench: 'cold-start',
    what:
      'first message of a page: one chat turn with one tool round, streaming, production Vite build, headless ' +
      'Chromium; ms on the page clock, JS KB gzip of what the page requested',
    runtime: `Chromium ${chromiumVersion}`,
    setup: {
      runs: RUNS,
      delayMs: DELAY_MS,
      callAfterMs: CALL_AFTER_MS,
      versions: Object.fromEntries(
        ['advisor-chain', 'ai', '@ai-sdk/openai', 'vite'].map((name) => [name, versionOf(name)]),
      ),
    },
    ...summary,
    seconds,
  }),
)
