// The devtools' cost to the page they watch: a production build of bench/devtools (a chat through
// useChat with a scripted model, observed into a devtools store), in headless Chromium, with the
// panel closed and open (docked), alternating, each load in a fresh browser context. Two loads per
// page: CHUNKS text chunks DELAY_MS apart (about 200 a second) while the runner clicks a button on the
// page every CLICK_EVERY_MS, then ROUNDS tool rounds with a ROUND_DELAY_MS model. Busy time is Chromium's
// own (CDP Performance.getMetrics: task, script, layout, style), and the main thread's CPU time beside it
// (ThreadTime: a task's time less the time the thread waited for a core, which on a shared machine
// swells every task); long tasks from the page's PerformanceObserver. Prints a table on stderr and one JSON line on stdout, with open/closed ratios.
// Usage: node bench/devtools/run.mjs, or npm run bench -- devtools (DEVTOOLS_BENCH_RUNS=n: n of each, default 3)
/* global window, performance -- in the functions that run in the page (page.evaluate) */
import { readFileSync } from 'node:fs'
import { extname, join, normalize } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { URL } from 'node:url'
import { chromium } from '@playwright/test'
import react from '@vitejs/plugin-react'
import { build } from 'vite'
import { chromiumLaunchOptions } from '../../e2e/browser/find.mjs'
import { packageEntries } from '../../scripts/entries.mjs'
import { median, percentile, ratio, summaryOf } from './figures.mjs'

const RUNS = Number(process.env.DEVTOOLS_BENCH_RUNS ?? 3)
const CHUNKS = Number(process.env.DEVTOOLS_BENCH_CHUNKS ?? 3000)
const DELAY_MS = 5
const ROUNDS = Number(process.env.DEVTOOLS_BENCH_ROUNDS ?? 300)
const ROUND_DELAY_MS = 10
const CLICK_EVERY_MS = 200
const ORIGIN = 'http://localhost'

const root = join(import.meta.dirname, '..', '..')
const outDir = join(root, 'node_modules', '.bench', 'devtools')
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

await build({
  root: import.meta.dirname,
  configFile: false,
  logLevel: 'warn',
  base: './',
  plugins: [react()],
  resolve: {
    alias: packageEntries().map((entry) => ({
      find: new RegExp(`^${entry.specifier}$`),
      replacement: join(root, entry.source),
    })),
  },
  build: { outDir, emptyOutDir: true, minify: true },
})

/** CDP's cumulative main-thread figures, in ms. */
async function busy(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics')
  const of = (name) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000
  return {
    all: of('TaskDuration'),
    script: of('ScriptDuration'),
    layout: of('LayoutDuration'),
    style: of('RecalcStyleDuration'),
    cpu: of('ThreadTime'),
  }
}

const minus = (after, before) => Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]]))

/** One page load with the panel `closed` or `open`: the stream's figures, then the tool rounds'. */
async function load(browser, panel) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (error) => errors.push(error))
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = normalize(new URL(route.request().url()).pathname).replace(/^\/+/, '') || 'index.html'
      route.fulfill({
        contentType: TYPES[extname(path)] ?? 'application/octet-stream',
        body: readFileSync(join(outDir, path)),
      })
    })
    await page.goto(`${ORIGIN}/index.html?panel=${panel}`)
    await page.waitForFunction(() => window.devtoolsBench !== undefined)
    await page.getByTestId(panel === 'open' ? 'devtools-dock' : 'devtools-toggle').waitFor()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable')
    const now = () => page.evaluate(() => performance.now())
    const ping = await page.getByTestId('ping').boundingBox()

    let from = await now()
    let before = await busy(cdp)
    let done = false
    const streamed = page.evaluate(
      ([chunks, delayMs]) => window.devtoolsBench.stream(chunks, delayMs),
      [CHUNKS, DELAY_MS],
    )
    streamed.finally(() => (done = true)).catch(() => {})
    while (!done) {
      await page.mouse.click(ping.x + ping.width / 2, ping.y + ping.height / 2)
      await sleep(CLICK_EVERY_MS)
    }
    const streamMs = await streamed
    const streamBusy = minus(await busy(cdp), before)
    let to = await now()
    const taken = await page.evaluate(() => window.devtoolsBench.take())
    const streamTasks = taken.longTasks.filter((task) => task.start >= from && task.start < to)

    await sleep(300)
    from = await now()
    before = await busy(cdp)
    const roundsMs = await page.evaluate(
      ([rounds, delayMs]) => window.devtoolsBench.rounds(rounds, delayMs),
      [ROUNDS, ROUND_DELAY_MS],
    )
    const roundsBusy = minus(await busy(cdp), before)
    to = await now()
    const roundTasks = (await page.evaluate(() => window.devtoolsBench.take())).longTasks.filter(
      (task) => task.start >= from && task.start < to,
    )
    if (errors.length > 0) throw new Error(`the bench page failed (panel ${panel}): ${errors[0].message}`)
    const tasks = (list) => ({
      count: list.length,
      total: list.reduce((sum, task) => sum + task.duration, 0),
      longest: Math.max(0, ...list.map((task) => task.duration)),
    })
    return {
      stream: {
        ms: streamMs,
        busy: streamBusy,
        longTasks: tasks(streamTasks),
        clicks: {
          count: taken.clicks.length,
          p50: percentile(taken.clicks, 50),
          p95: percentile(taken.clicks, 95),
          max: Math.max(...taken.clicks),
        },
      },
      rounds: { ms: roundsMs, busy: roundsBusy, longTasks: tasks(roundTasks) },
    }
  } finally {
    await context.close()
  }
}

const browser = await chromium.launch(chromiumLaunchOptions())
const loads = { closed: [], open: [] }
try {
  for (let run = 0; run < RUNS; run++) {
    // Alternating, and which goes first too: neither side always runs on a warmer machine.
    for (const panel of run % 2 === 0 ? ['closed', 'open'] : ['open', 'closed']) {
      const figures = await load(browser, panel)
      loads[panel].push(figures)
      console.error(`devtools: run ${run + 1}/${RUNS}, panel ${panel}: ${JSON.stringify(figures)}`)
    }
  }
} finally {
  await browser.close()
}

const closed = summaryOf(loads.closed)
const open = summaryOf(loads.open)
const ratios = {
  streamMs: ratio(open.stream.ms, closed.stream.ms),
  streamBusy: ratio(open.stream.busy.all, closed.stream.busy.all),
  streamCpu: ratio(open.stream.busy.cpu, closed.stream.busy.cpu),
  clickP95: ratio(open.stream.clicks.p95, closed.stream.clicks.p95),
  roundsMs: ratio(open.rounds.ms, closed.rounds.ms),
  roundsBusy: ratio(open.rounds.busy.all, closed.rounds.busy.all),
  roundsCpu: ratio(open.rounds.busy.cpu, closed.rounds.busy.cpu),
}
const longest = Math.max(...loads.open.map((figures) => figures.stream.longTasks.longest))
const goals = {
  'stream busy ≤ 1.5x': ratios.streamBusy <= 1.5,
  'stream duration ≤ 1.05x': ratios.streamMs <= 1.05,
  'no long task over 50 ms while streaming, panel open': longest <= 50,
  'click p95 ≤ 1.2x': ratios.clickP95 <= 1.2,
  'rounds busy ≤ 1.5x': ratios.roundsBusy <= 1.5,
}
const row = (label, of) => `${label.padEnd(44)}${String(of(closed)).padStart(30)}${String(of(open)).padStart(30)}`
const ms = (value) => `${Math.round(value)}`
const s = (value) => (value / 1000).toFixed(2)
console.error(
  [
    `devtools: medians of ${RUNS} loads each (ms unless said)`,
    `${''.padEnd(44)}${'closed'.padStart(30)}${'open'.padStart(30)}`,
    row(`${CHUNKS} chunks at ~${Math.round(1000 / DELAY_MS)}/s: stream s`, (side) => s(side.stream.ms)),
    row('  busy all / script / layout / style s', (side) =>
      ['all', 'script', 'layout', 'style'].map((key) => s(side.stream.busy[key])).join(' / '),
    ),
    row('  main-thread CPU s', (side) => s(side.stream.busy.cpu)),
    row('  long tasks count / total / longest', (side) =>
      [side.stream.longTasks.count, ms(side.stream.longTasks.total), ms(side.stream.longTasks.longest)].join(' / '),
    ),
    row('  click p50 / p95 / max', (side) =>
      [side.stream.clicks.p50, side.stream.clicks.p95, side.stream.clicks.max].map(ms).join(' / '),
    ),
    row(`${ROUNDS} tool rounds: time s / busy s / CPU s`, (side) =>
      [side.rounds.ms, side.rounds.busy.all, side.rounds.busy.cpu].map(s).join(' / '),
    ),
    row('  long tasks count / total / longest', (side) =>
      [side.rounds.longTasks.count, ms(side.rounds.longTasks.total), ms(side.rounds.longTasks.longest)].join(' / '),
    ),
    `ratios open/closed: ${JSON.stringify(ratios)}`,
    `goals: ${JSON.stringify(goals)}`,
  ].join('\n'),
)
console.log(
  JSON.stringify({
    bench: 'devtools',
    what: `the page with the devtools open (docked) vs closed, medians of ${RUNS} alternating loads: ${CHUNKS} chunks ${DELAY_MS} ms apart with a click every ${CLICK_EVERY_MS} ms, then ${ROUNDS} tool rounds with a ${ROUND_DELAY_MS} ms model`,
    closed,
    open,
    ratios,
    longestOpenStreamTaskMs: longest,
    medianOpenStreamBusyMs: median(loads.open.map((figures) => figures.stream.busy.all)),
    goals,
    runtime: `Chromium ${browser.version()}`,
  }),
)
