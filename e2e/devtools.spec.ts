import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Locator, type Page } from '@playwright/test'
import { waitForRun } from 'advisor-chain/playwright'
import type { TraceEvent } from '../src/trace/events'
import { exportTrace } from '../src/trace/file'
import { sampleRun } from '../src/trace/testing/sample-trace'
import { recordLargeSession } from './devtools-session'
import { demo, devtools, keptRuns, openDemo, send } from './support'

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

async function importFile(page: Page, name: string, text: string) {
  await devtools(page)
    .getByLabel('Import a trace file')
    .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) })
}

test("the panel's code loads when it is first opened, not with the page", async ({ page }) => {
  const panel = devtools(page)
  await panel.getByRole('button', { name: 'Close devtools' }).click()
  await page.reload({ waitUntil: 'networkidle' })
  await expect(panel.getByRole('button', { name: 'Open advisor-chain devtools' })).toBeVisible()
  const scripts: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url())
  })
  await panel.getByRole('button', { name: 'Open advisor-chain devtools' }).click()
  await expect(panel.getByTestId('devtools-dock')).toBeVisible()
  expect(scripts.length).toBeGreaterThan(0)
})

test("the page keeps still when the panel's code arrives: its room is left while it loads", async ({ page }) => {
  // The panel's chunk held back, as on a slow network: the page must not move when it lands (a
  // click aimed at the page in that moment would hit something else).
  await page.route('**/assets/panel-*.js', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    await route.continue()
  })
  await page.reload()
  const composer = demo(page).getByRole('textbox', { name: 'Message', exact: true })
  await expect(page.getByTestId('model-pill')).not.toHaveText('Choose a model')
  await expect(devtools(page).getByTestId('devtools-dock')).toHaveCount(0)
  const before = await composer.boundingBox()
  await expect(devtools(page).getByTestId('devtools-dock')).toBeVisible()
  expect(await composer.boundingBox()).toEqual(before)
})

test('open state and dock are remembered across reloads', async ({ page }) => {
  const panel = devtools(page)
  await panel.getByRole('button', { name: 'Dock to the right' }).click()
  await expect(panel.getByTestId('devtools-dock')).toHaveClass(/right/)
  await panel.getByRole('button', { name: 'Close devtools' }).click()
  await expect(panel.getByTestId('devtools-dock')).toHaveCount(0)
  await page.reload()
  await expect(panel.getByRole('button', { name: 'Open advisor-chain devtools' })).toBeVisible()
  await panel.getByRole('button', { name: 'Open advisor-chain devtools' }).click()
  await expect(panel.getByTestId('devtools-dock')).toHaveClass(/right/)
})

test('a session exported and imported again shows the same runs', async ({ page }, testInfo) => {
  await send(page, 'Note: call mum, then list my notes')
  await send(page, 'What is 6 * 7?')
  await waitForRun(page)
  await waitForRun(page)
  const panel = devtools(page)
  // Both runs listed and ended before the session is read.
  await expect(panel.getByTestId('run-row')).toHaveCount(2)
  await expect(panel.locator('[data-testid="run-row"][data-status="running"]')).toHaveCount(0)
  const labels = await panel.getByTestId('run-row').allTextContents()
  const downloading = page.waitForEvent('download')
  await panel.getByRole('button', { name: 'Export' }).click()
  const file = testInfo.outputPath('session.json')
  await (await downloading).saveAs(file)
  const text = readFileSync(file, 'utf8')
  expect(JSON.parse(text)).toMatchObject({ format: 'advisor-chain-trace' })

  await panel.getByRole('button', { name: 'Clear' }).click()
  await expect(panel.getByTestId('run-row')).toHaveCount(0)
  await importFile(page, 'session.json', text)
  await expect(panel.getByTestId('run-row')).toHaveCount(labels.length)
  expect(await panel.getByTestId('run-row').allTextContents()).toEqual(labels)
  await panel.getByTestId('run-row').filter({ hasText: 'call mum' }).click()
  await expect(panel.getByTestId('timeline-tool')).toHaveCount(2)
})

test('a finished run survives a reload, marked as restored, and Clear forgets it', async ({ page }) => {
  await send(page, 'What is 6 * 7?')
  await waitForRun(page)
  const panel = devtools(page)
  await expect(panel.locator('[data-testid="run-row"][data-status="running"]')).toHaveCount(0)
  const labels = await panel.getByTestId('run-row').allTextContents()
  await expect.poll(() => keptRuns(page)).toBe(1)

  await page.reload()
  await expect(panel.getByTestId('run-row')).toHaveCount(1)
  expect(await panel.getByTestId('run-row').allTextContents()).toEqual(labels)
  await expect(panel.getByTestId('restored-note')).toHaveText(
    '1 run restored from a previous page load. Clear forgets them.',
  )
  await expect(panel.locator('.detail-head')).toContainText('from a previous page load')

  await panel.getByRole('button', { name: 'Clear' }).click()
  await expect(panel.getByTestId('run-row')).toHaveCount(0)
  await expect.poll(() => keptRuns(page)).toBe(0)
  await page.reload()
  await expect(page.getByTestId('model-pill')).not.toHaveText('Choose a model')
  // The chat comes back from memory (its answer is on the page before the next question goes).
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  // The next run is the only one: the kept run did not come back.
  await send(page, 'What is 2 + 2?')
  await waitForRun(page)
  await expect(panel.getByTestId('run-row')).toHaveCount(1)
  await expect(panel.getByTestId('run-row')).toContainText('2 + 2')
  await expect(panel.getByTestId('restored-note')).toHaveCount(0)
})

test('a malformed or hostile trace file is refused with a clear message and loses nothing', async ({ page }) => {
  await send(page, 'What is 2 + 2?')
  await waitForRun(page)
  const panel = devtools(page)
  await expect(panel.getByTestId('run-row')).toHaveCount(1)
  await importFile(page, 'broken.json', '{"format": "advisor-chain-trace", "version": 1, "events": [')
  await expect(panel.getByRole('alert')).toContainText('The file is not JSON')
  const hostile =
    '{"format":"advisor-chain-trace","version":1,"events":[{"__proto__":{"polluted":true},"type":"run-start"}]}'
  await importFile(page, 'hostile.json', hostile)
  await expect(panel.getByRole('alert')).toBeVisible()
  expect(await page.evaluate(() => 'polluted' in Object.prototype)).toBe(false)
  await expect(panel.getByTestId('run-row')).toHaveCount(1)
})

test('the panel is usable by keyboard and has names for screen readers', async ({ page }) => {
  await send(page, 'Note: buy bread, then list my notes')
  await waitForRun(page)
  const panel = devtools(page)
  await expect(panel.getByRole('listbox')).toBeVisible()
  await expect(panel.getByRole('toolbar', { name: 'Devtools' })).toBeVisible()
  await expect(panel.getByRole('tablist', { name: 'Run views' })).toBeVisible()
  await panel.getByRole('button', { name: /^TOOL add_note/ }).focus()
  await page.keyboard.press('Enter')
  await expect(panel.getByTestId('inspector')).toContainText('buy bread')
  await panel.getByRole('button', { name: /^Round 2/ }).focus()
  await page.keyboard.press('Enter')
  await panel.getByRole('tab', { name: 'Raw' }).focus()
  await page.keyboard.press('Enter')
  await expect(panel.getByRole('tab', { name: 'Raw' })).toHaveAttribute('aria-selected', 'true')
})

test('ten thousand events keep the panel usable (times reported, not asserted)', async ({ page }, testInfo) => {
  test.setTimeout(120_000)
  const trace = await recordLargeSession()
  const events = (JSON.parse(trace) as { events: unknown[] }).events.length
  expect(events).toBeGreaterThanOrEqual(10_000)
  const panel = devtools(page)

  const importStart = Date.now()
  await importFile(page, 'large.json', trace)
  await expect(panel.getByTestId('run-row').first()).toBeVisible()
  const importMs = Date.now() - importStart

  await panel.getByRole('button', { name: 'Close devtools' }).click()
  const openMs = await page.evaluate(async () => {
    // The closed toggle and the open panel each render in a shadow root of their own.
    const roots = () =>
      [...document.querySelectorAll('[data-advisor-chain-devtools-host]')].map((host) => host.shadowRoot!)
    const toggle = roots()
      .map((root) => root.querySelector<HTMLButtonElement>('button[aria-label="Open advisor-chain devtools"]'))
      .find(Boolean)!
    const start = performance.now()
    toggle.click()
    while (!roots().some((root) => root.querySelector('[data-testid="run-row"]')))
      await new Promise(requestAnimationFrame)
    await new Promise(requestAnimationFrame)
    return performance.now() - start
  })

  await panel.getByRole('searchbox', { name: 'Search runs' }).fill('long investigation')
  await panel.getByRole('option', { name: /A long investigation\W+ok/ }).click()
  await expect(panel.getByTestId('timeline-round').first()).toBeVisible()
  const scroll = await page.evaluate(async () => {
    const host = [...document.querySelectorAll('[data-advisor-chain-devtools-host]')].at(-1)!
    const list = host.shadowRoot!.querySelector<HTMLElement>('.scroll.waterfall')!
    const frames: number[] = []
    let last = performance.now()
    for (let step = 0; step < 60; step++) {
      list.scrollTop = ((step + 1) / 60) * (list.scrollHeight - list.clientHeight)
      await new Promise(requestAnimationFrame)
      const now = performance.now()
      frames.push(now - last)
      last = now
    }
    frames.sort((a, b) => a - b)
    return {
      rows: Math.round((list.scrollHeight - 22) / 26),
      rendered: host.shadowRoot!.querySelectorAll('[data-testid^="timeline-"]').length,
      medianFrameMs: frames[30]!,
      worstFrameMs: frames.at(-1)!,
    }
  })
  expect(scroll.rendered).toBeLessThan(200)
  await expect(panel.getByTestId('timeline-round').last()).toBeVisible()

  const figures = { events, importMs, openMs: Math.round(openMs), ...scroll }
  writeFileSync(testInfo.outputPath('devtools-10k.json'), JSON.stringify(figures, null, 2))
  testInfo.annotations.push({ type: 'devtools-10k', description: JSON.stringify(figures) })
  console.log('devtools with 10k events:', JSON.stringify(figures))
  await page.screenshot({ path: testInfo.outputPath('devtools-10k.png') })
})

// Below: the brief's own scenarios (local_time), driven through the download and file chooser, with
// screenshots of every view and the 10,000-event figures written to test-results/devtools-perf.json.

/** The panel's root inside its shadow root. */
const panel = (page: Page): Locator => page.getByTestId('devtools-panel')

/** The demo is already open (beforeEach); the panel is docked and open by default. */
async function openPanel(page: Page): Promise<void> {
  await expect(panel(page)).toBeVisible()
}

async function ask(page: Page, text: string): Promise<void> {
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill(text)
  await demo(page).getByRole('button', { name: 'Send', exact: true }).click()
  await expect(demo(page).getByRole('button', { name: 'Send', exact: true })).toBeVisible({ timeout: 15_000 })
}

/** A trace file of `events` on disk, for the file chooser. */
function traceFile(path: string, events: TraceEvent[]): string {
  writeFileSync(path, exportTrace(events))
  return path
}

async function chooseFile(page: Page, path: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser')
  await panel(page).getByRole('button', { name: 'Import', exact: true }).click()
  await (await chooser).setFiles(path)
}

test('a two-round tool conversation shows both rounds, the tool call with its result, and the prompt diff', async ({
  page,
}, testInfo) => {
  await openPanel(page)
  await ask(page, 'What time is it here?')
  await expect(page.getByTestId('message-assistant').last()).toContainText('It is')

  const devtools = panel(page)
  await expect(devtools.getByTestId('run-row')).toHaveCount(1)
  await expect(devtools.getByTestId('run-row')).toHaveAttribute('data-status', 'ok')
  await expect(devtools.getByTestId('timeline-round')).toHaveCount(2)
  await expect(devtools.getByTestId('timeline-model')).toHaveCount(2)
  await expect(devtools.getByTestId('timeline-tool')).toHaveCount(1)
  await page.screenshot({ path: testInfo.outputPath('panel-docked-light.png') })

  await devtools.getByTestId('timeline-tool').click()
  const inspector = devtools.getByTestId('inspector')
  await expect(inspector).toContainText('local_time()')
  await expect(inspector.getByTestId('tool-arguments')).toHaveText('{}')
  await expect(inspector.getByTestId('tool-result')).toContainText('"timeZone"')
  await page.screenshot({ path: testInfo.outputPath('tool-span-selected.png') })

  // Round 2's prompt holds the call and its result, matched by id.
  await devtools.getByTestId('timeline-round').nth(1).click()
  await expect(inspector.getByRole('tab', { name: 'Prompt' })).toHaveAttribute('aria-selected', 'true')
  const call = inspector.getByTestId('inspector-tool-call')
  await expect(call).toContainText('local_time()')
  await expect(call.getByTestId('tool-result')).toContainText('"timeZone"')

  // The diff against round 1: the assistant's tool call and the tool's answer were added.
  await inspector.getByRole('tab', { name: 'Prompt' }).focus()
  await page.keyboard.press('ArrowRight')
  await expect(inspector.getByRole('tab', { name: 'Diff' })).toBeFocused()
  await expect(inspector.getByTestId('diff-summary')).toContainText(
    'Round 2 against round 1: 2 messages added, 0 removed, 2 unchanged',
  )
  await expect(inspector.locator('[data-change="added"]')).toHaveCount(2)
  await page.screenshot({ path: testInfo.outputPath('prompt-diff.png') })

  await inspector.getByRole('tab', { name: /Tools/ }).click()
  await expect(inspector).toContainText('local_time')
  await inspector.getByRole('tab', { name: 'Raw' }).click()
  await expect(inspector.getByTestId('raw-json')).toContainText('"type": "model-request"')

  await devtools.getByRole('tab', { name: /Chain/ }).click()
  await expect(devtools.getByTestId('chain-view')).toContainText('Tool Calling Advisor')
  await expect(devtools.locator('[data-placement="inside-loop"]').first()).toContainText('Observer Advisor')
  await page.screenshot({ path: testInfo.outputPath('chain-view.png') })
})

test('the timeline is live while a run streams, and the keyboard walks it', async ({ page }, testInfo) => {
  await openPanel(page)
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Tell me a long story')
  await page.getByRole('button', { name: 'Send', exact: true }).click()
  const devtools = panel(page)
  const run = devtools.getByTestId('run-row').first()
  await expect(run).toHaveAttribute('data-status', 'running')
  const model = devtools.getByTestId('timeline-model').first()
  await expect(model).toHaveAccessibleName(/streaming…/)
  const streaming = devtools.locator('.bar.model.live .streaming')
  await expect(streaming).toBeVisible()
  const width = async () => (await streaming.boundingBox())?.width ?? 0
  const before = await width()
  await expect.poll(width).toBeGreaterThan(before)
  await page.screenshot({ path: testInfo.outputPath('live-streaming.png') })
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await expect(run).toHaveAttribute('data-status', 'aborted')

  await ask(page, 'What time is it here?')
  await expect(devtools.getByTestId('timeline-round')).toHaveCount(2)
  await devtools.getByTestId('timeline-round').first().focus()
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('ArrowDown')
  await expect(devtools.getByTestId('timeline-tool')).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(devtools.getByTestId('inspector')).toContainText('local_time()')
  await page.keyboard.press('End')
  await expect(devtools.getByTestId('timeline-model').last()).toBeFocused()
  await page.keyboard.press('Enter')
  await page.keyboard.press('Tab')
  await expect(devtools.getByRole('tab', { name: 'Prompt' })).toBeFocused()
})

test('the session exports to a file and imports again; a malformed file is refused with its first problem', async ({
  page,
}, testInfo) => {
  await openPanel(page)
  await ask(page, 'What time is it here?')
  const devtools = panel(page)
  await expect(devtools.getByTestId('timeline-round')).toHaveCount(2)

  const download = page.waitForEvent('download')
  await devtools.getByRole('button', { name: 'Export', exact: true }).click()
  const exported = testInfo.outputPath('exported-session.json')
  await (await download).saveAs(exported)
  const file = JSON.parse(readFileSync(exported, 'utf8')) as { format: string; version: number; events: unknown[] }
  expect([file.format, file.version]).toEqual(['advisor-chain-trace', 1])
  expect(file.events.length).toBeGreaterThan(10)

  await devtools.getByRole('button', { name: 'Clear', exact: true }).click()
  await expect(devtools.getByTestId('run-row')).toHaveCount(0)

  await chooseFile(page, exported)
  await expect(devtools.getByTestId('import-source')).toContainText('exported-session.json')
  await expect(devtools.getByTestId('run-row')).toHaveCount(1)
  await expect(devtools.getByTestId('run-row')).toContainText('What time is it here?')
  await expect(devtools.getByTestId('timeline-round')).toHaveCount(2)
  await devtools.getByTestId('timeline-tool').click()
  await expect(devtools.getByTestId('inspector').getByTestId('tool-result')).toContainText('"timeZone"')

  const broken = JSON.parse(readFileSync(exported, 'utf8')) as { events: Array<Record<string, unknown>> }
  const index = broken.events.findIndex((event) => event['type'] === 'tool-end')
  broken.events[index]!['result'] = 42
  const brokenPath = testInfo.outputPath('broken-session.json')
  writeFileSync(brokenPath, JSON.stringify(broken))
  await chooseFile(page, brokenPath)
  await expect(devtools.getByTestId('import-error')).toContainText(
    `broken-session.json was not imported: event ${index} (tool-end): result must be a string`,
  )
  await expect(devtools.getByTestId('run-row')).toHaveCount(1)
  await page.screenshot({ path: testInfo.outputPath('import-error.png') })
})

test('model output, tool arguments and results render as text, never as HTML', async ({ page }, testInfo) => {
  await openPanel(page)
  const payload = '<img src=x onerror=window.__pwned=1>'
  await ask(page, `Note: ${payload}, then list my notes`)
  const devtools = panel(page)
  await expect(devtools.getByTestId('timeline-round')).toHaveCount(3)
  await devtools.getByTestId('timeline-tool').first().click()
  await expect(devtools.getByTestId('inspector').getByTestId('tool-arguments')).toContainText(payload)

  // And from a file: the same payload in every text field of a round.
  const events = sampleRun({ runId: 'hostile', question: payload, answer: `Answer ${payload}`, toolResult: payload })
  await chooseFile(page, traceFile(testInfo.outputPath('hostile.json'), events))
  // Imported runs join the recorded ones: pick the imported one by its id (the end of 'hostile').
  const imported = devtools.getByTestId('run-row').filter({ hasText: '#ostile' })
  await expect(imported).toContainText(payload)
  await imported.click()
  await devtools.getByTestId('timeline-round').nth(1).click()
  await devtools.getByRole('tab', { name: 'Response' }).click()
  await expect(devtools.getByTestId('inspector')).toContainText(`Answer ${payload}`)
  await devtools.getByRole('tab', { name: 'Prompt' }).click()
  await expect(devtools.getByTestId('inspector').getByTestId('tool-result')).toContainText(payload)

  const images = await devtools.evaluate(
    (element) =>
      element.getRootNode() instanceof ShadowRoot &&
      (element.getRootNode() as ShadowRoot).querySelectorAll('img').length,
  )
  expect(images).toBe(0)

  // Live model output, in the chat and in the panel.
  await ask(page, `Repeat: ${payload}`)
  await expect(page.getByTestId('message-assistant').last()).toContainText(payload)
  await devtools.getByTestId('run-row').first().click()
  await devtools.getByTestId('timeline-model').first().click()
  await devtools.getByRole('tab', { name: 'Response' }).click()
  await expect(devtools.getByTestId('inspector')).toContainText(payload)
  expect(await page.locator('img[src="x"]').count()).toBe(0)
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
  await page.screenshot({ path: testInfo.outputPath('hostile-payload-as-text.png') })
})

test('host page CSS does not restyle the panel, and the panel CSS does not leak out', async ({ page }, testInfo) => {
  await openPanel(page)
  await ask(page, 'What time is it here?')
  await page.addStyleTag({
    content: `* { font-family: serif !important; letter-spacing: 3px !important; color: red !important; }
      button { background: hotpink !important; border: 4px solid lime !important; }
      .row, .bar, .toolbar { display: none !important; }`,
  })
  await page.evaluate(() => {
    const probe = document.createElement('div')
    probe.className = 'dock floating-toggle run-row'
    probe.id = 'probe'
    probe.textContent = 'host element with the panel’s class names'
    document.body.prepend(probe)
  })
  const devtools = panel(page)
  const exportButton = devtools.getByRole('button', { name: 'Export', exact: true })
  const style = await exportButton.evaluate((element) => {
    const computed = getComputedStyle(element)
    return {
      background: computed.backgroundColor,
      border: computed.borderTopWidth,
      font: computed.fontFamily,
      spacing: computed.letterSpacing,
      color: computed.color,
    }
  })
  expect(style.background).toBe('rgba(0, 0, 0, 0)')
  expect(style.border).toBe('0px')
  expect(style.font).toContain('system-ui')
  expect(style.spacing).toBe('normal')
  expect(style.color).not.toBe('rgb(255, 0, 0)')
  await expect(devtools.getByTestId('timeline-model').first()).toBeVisible()
  const probe = await page.locator('#probe').evaluate((element) => {
    const computed = getComputedStyle(element)
    return { position: computed.position, display: computed.display, background: computed.backgroundColor }
  })
  expect(probe).toEqual({ position: 'static', display: 'block', background: 'rgba(0, 0, 0, 0)' })
  await page.screenshot({ path: testInfo.outputPath('hostile-host-css.png') })
})

test('a failed tool marks its round and its run; dark theme and right dock are remembered', async ({
  page,
}, testInfo) => {
  await openPanel(page)
  const devtools = panel(page)
  const events = [
    ...sampleRun({ runId: 'calm-run-000001', question: 'What time is it?', startedAt: Date.now() - 60_000 }),
    ...sampleRun({
      runId: 'bad-run-000002',
      question: 'What time is it?',
      seq: 100,
      t0: 5000,
      toolError: true,
      parallel: 3,
      toolRounds: 2,
      startedAt: Date.now(),
    }),
  ]
  await chooseFile(page, traceFile(testInfo.outputPath('tool-error.json'), events))
  const rows = devtools.getByTestId('run-row')
  await expect(rows).toHaveCount(2)
  // Identical prompts are told apart by the run id's end.
  await expect(rows.nth(0)).toContainText('#000002')
  await expect(rows.nth(1)).toContainText('#000001')
  await expect(rows.nth(0)).toHaveAttribute('data-status', 'problem')
  await expect(rows.nth(1)).toHaveAttribute('data-status', 'ok')
  await rows.nth(0).click()
  await expect(devtools.getByTestId('timeline-round').nth(0)).toHaveClass(/\bbad\b/)
  await expect(devtools.getByTestId('timeline-round').nth(1)).not.toHaveClass(/\bbad\b/)
  await expect(devtools.getByTestId('timeline-tool').first()).toHaveAccessibleName(/failed/)
  await devtools.getByTestId('timeline-round').first().click()
  await devtools.getByRole('tab', { name: 'Timing' }).click()
  await expect(devtools.getByTestId('inspector')).toContainText('for 3 calls')
  await page.screenshot({ path: testInfo.outputPath('tool-error-timing-light.png') })
  await devtools.getByTestId('timeline-tool').first().click()
  await expect(devtools.getByTestId('inspector')).toContainText('Error: the clock is broken')

  await devtools.getByRole('button', { name: /Switch to the dark theme/ }).click()
  await devtools.getByRole('button', { name: 'Dock to the right' }).click()
  await expect(devtools).toHaveAttribute('data-theme', 'dark')
  await page.screenshot({ path: testInfo.outputPath('dark-right-dock-tool-error.png') })
  await devtools.getByRole('button', { name: 'Dock to the bottom' }).click()
  await page.screenshot({ path: testInfo.outputPath('dark-bottom-dock-tool-error.png') })
  await devtools.getByRole('button', { name: 'Dock to the right' }).click()
  await page.reload()
  await expect(panel(page)).toHaveAttribute('data-theme', 'dark')
  await expect(page.getByTestId('devtools-dock')).toHaveClass(/right/)
  await panel(page).getByRole('button', { name: 'Close devtools' }).click()
  await expect(page.getByTestId('devtools-toggle')).toBeVisible()
  await page.reload()
  await expect(page.getByTestId('devtools-toggle')).toBeVisible()
  await expect(panel(page)).toHaveCount(0)
})

test('the chain view warns about a memory advisor inside the loop and an observer outside it', async ({
  page,
}, testInfo) => {
  await openPanel(page)
  // Round 2's request carries the assistant's call and the tool's result twice: the history went twice.
  const memoryInside = sampleRun({ runId: 'memory-inside', toolRounds: 1 }).map((event) =>
    event.type === 'run-start'
      ? {
          ...event,
          chain: [
            { name: 'Tool Calling Advisor', order: -2147483348, placement: 'tool-loop' as const },
            { name: 'Message Chat Memory Advisor', order: -2147483298, placement: 'inside-loop' as const },
            { name: 'Observer Advisor', order: -2147483248, placement: 'inside-loop' as const },
          ],
        }
      : event.type === 'model-request' && event.round === 2
        ? { ...event, messages: [...event.messages, ...event.messages] }
        : event,
  )
  const outside: TraceEvent[] = [
    { ...memoryInside[0]!, runId: 'observer-outside', seq: 500, observer: 'outside-loop' } as TraceEvent,
  ]
  await chooseFile(page, traceFile(testInfo.outputPath('layouts.json'), [...memoryInside, ...outside]))
  const devtools = panel(page)
  await devtools
    .getByTestId('run-row')
    .filter({ hasText: 'memory-inside'.slice(-6) })
    .click()
  await devtools.getByRole('tab', { name: /Chain/ }).click()
  await expect(devtools.getByRole('note')).toContainText('A memory advisor sits inside the loop')
  await page.screenshot({ path: testInfo.outputPath('chain-warning-memory.png') })
  await devtools
    .getByTestId('run-row')
    .filter({ hasText: 'observer-outside'.slice(-6) })
    .click()
  await expect(devtools.getByTestId('timeline')).toHaveCount(0)
  await devtools.getByRole('tab', { name: /Chain/ }).click()
  await expect(devtools.getByRole('note')).toContainText('The observer sits outside the tool loop')
})

test('with 10,000 events the panel opens, scrolls and inspects quickly (figures written, not asserted)', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000)
  await openPanel(page)
  const devtools = panel(page)
  const figures: Record<string, unknown> = { date: new Date().toISOString(), viewport: page.viewportSize() }

  // 200 runs of 50 events each.
  const many: TraceEvent[] = []
  for (let index = 0; index < 200; index++)
    many.push(
      ...sampleRun({
        runId: `run-${String(index).padStart(4, '0')}-${(index * 7919).toString(36)}`,
        question: `Question ${index}: what time is it in zone ${index % 24}?`,
        seq: many.length,
        t0: index * 1000,
        startedAt: Date.now() - (200 - index) * 1000,
        toolRounds: 3,
        parallel: 2,
        chunks: 16,
        toolError: index % 17 === 0,
      }),
    )
  const manyPath = traceFile(testInfo.outputPath('ten-thousand-events-200-runs.json'), many)
  let started = Date.now()
  await chooseFile(page, manyPath)
  await expect(devtools.getByText('200 runs', { exact: true })).toBeVisible()
  figures['manyRuns'] = { events: many.length, runs: 200, importMs: Date.now() - started }

  await devtools.getByRole('button', { name: 'Close devtools' }).click()
  started = Date.now()
  await page.getByTestId('devtools-toggle').click()
  await expect(devtools.getByTestId('timeline-round').first()).toBeVisible()
  const openMs = Date.now() - started
  const runList = devtools.getByTestId('run-list')
  const runScroll = await runList.evaluate(scrollThrough)
  const nodes = await devtools.evaluate((element) => (element.getRootNode() as ShadowRoot).querySelectorAll('*').length)
  await expect(devtools.getByTestId('run-row').last()).toContainText('Question 0:')
  Object.assign(figures['manyRuns'] as object, { openMs, runListScroll: runScroll, panelDomNodes: nodes })
  await page.screenshot({ path: testInfo.outputPath('ten-thousand-events-200-runs.png') })

  // Keyboard: from the first run, End jumps to the oldest.
  await devtools.getByTestId('run-row').first().focus()
  await page.keyboard.press('End')
  await expect(devtools.getByTestId('run-row').filter({ hasText: 'Question 0:' })).toBeFocused()

  // One run of 10,000 events: 1,111 rounds, the last one sending 2,222 messages.
  const long = sampleRun({ runId: 'long-run', question: 'A very long loop', toolRounds: 1110, parallel: 2, chunks: 8 })
  expect(long.length).toBeGreaterThanOrEqual(10_000)
  const longPath = traceFile(testInfo.outputPath('ten-thousand-events-one-run.json'), long)
  // Imports add to what is shown: clear first, to see that run alone.
  await devtools.getByRole('button', { name: 'Clear', exact: true }).click()
  started = Date.now()
  await chooseFile(page, longPath)
  await expect(devtools.getByTestId('run-row')).toHaveCount(1)
  await expect(devtools.getByTestId('timeline-round').first()).toBeVisible()
  const importMs = Date.now() - started
  const timelineScroll = await devtools.getByTestId('timeline').evaluate(scrollThrough)
  await devtools.getByTestId('timeline-round').last().click()
  started = Date.now()
  await devtools.getByRole('tab', { name: 'Prompt' }).click()
  await expect(devtools.getByTestId('inspector')).toContainText('Show 2197 earlier messages')
  const promptMs = Date.now() - started
  started = Date.now()
  await devtools.getByRole('tab', { name: 'Diff' }).click()
  await expect(devtools.getByTestId('diff-summary')).toContainText('2 messages added')
  const diffMs = Date.now() - started
  figures['oneLongRun'] = {
    events: long.length,
    rounds: 1111,
    importMs,
    timelineScroll,
    lastRoundPromptMs: promptMs,
    lastRoundDiffMs: diffMs,
  }
  await page.screenshot({ path: testInfo.outputPath('ten-thousand-events-one-run.png') })

  const directory = testInfo.project.outputDir
  mkdirSync(directory, { recursive: true })
  writeFileSync(join(directory, 'devtools-perf.json'), JSON.stringify(figures, null, 2))
  testInfo.attachments.push({
    name: 'devtools-perf.json',
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify(figures, null, 2)),
  })
})

/**
 * Scrolls a list from top to bottom in 40 steps, waiting for two frames after each, and reports
 * how long the steps took (a step of about two frames means the list kept up).
 */
async function scrollThrough(element: Element) {
  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))
  const steps = 40
  const end = element.scrollHeight - element.clientHeight
  const times: number[] = []
  const started = performance.now()
  for (let step = 1; step <= steps; step++) {
    const t0 = performance.now()
    element.scrollTop = (end * step) / steps
    await frame()
    await frame()
    times.push(performance.now() - t0)
  }
  const total = performance.now() - started
  times.sort((a, b) => a - b)
  const round = (ms: number) => Math.round(ms * 10) / 10
  return {
    steps,
    scrollHeight: element.scrollHeight,
    totalMs: round(total),
    medianStepMs: round(times[steps >> 1]!),
    slowestStepMs: round(times.at(-1)!),
    rowsRendered: element.querySelectorAll('[data-row-index]').length,
  }
}
