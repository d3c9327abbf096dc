import { readFileSync, writeFileSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { waitForRun } from 'advisor-chain/playwright'
import { recordLargeSession } from './devtools-session'
import { demo, devtools, openDemo, send } from './support'

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

async function importFile(page: Page, name: string, text: string) {
  await devtools(page)
    .getByLabel('Import a trace file')
    .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) })
}

test('the panel shows both rounds of a tool conversation, with arguments, result and the prompt diff', async ({
  page,
}, testInfo) => {
  const panel = devtools(page)
  await expect(panel.getByTestId('devtools-dock')).toBeVisible()
  await send(page, 'Note: water the plants')
  await waitForRun(page)

  const run = panel.getByRole('option', { name: /Note: water the plants: ok, 2 rounds/ })
  await expect(run).toBeVisible()
  await expect(panel.getByTestId('timeline-round')).toHaveCount(2)
  await expect(panel.getByTestId('timeline-model')).toHaveCount(2)

  await panel.getByTestId('timeline-tool').click()
  const inspector = panel.getByTestId('inspector')
  await expect(inspector).toContainText('add_note')
  await expect(inspector).toContainText('"text": "water the plants"')
  await expect(inspector).toContainText('"id": "1"')

  await panel.getByTestId('timeline-round').nth(1).click()
  await panel.getByRole('tab', { name: 'Diff' }).click()
  await expect(inspector).toContainText('Round 2 against round 1')
  await expect(inspector.getByRole('region', { name: /assistant message, added/ })).toContainText('add_note')
  await expect(inspector.getByRole('region', { name: /tool message, added/ })).toContainText('water the plants')

  await panel.getByRole('tab', { name: 'Prompt' }).click()
  await expect(inspector.getByRole('region', { name: /^user message/ })).toContainText('Note: water the plants')
  await panel.getByRole('tab', { name: 'Tools' }).click()
  await expect(inspector).toContainText('list_notes')
  await page.screenshot({ path: testInfo.outputPath('devtools-two-rounds.png') })

  await panel.getByRole('tab', { name: 'Chain' }).click()
  await expect(panel.getByLabel('Tool loop')).toContainText('Observer Advisor')
  await page.screenshot({ path: testInfo.outputPath('devtools-chain.png') })
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

test('model output and tool results render as text, never as HTML', async ({ page }) => {
  const payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
  const answer = await send(page, `Repeat: ${payload}`)
  await expect(answer).toContainText(payload)
  await send(page, `Note: ${payload}`)
  await waitForRun(page)
  const panel = devtools(page)
  await panel.getByTestId('timeline-model').first().click()
  await panel.getByRole('tab', { name: 'Response' }).click()
  await expect(panel.getByTestId('inspector')).toContainText(payload)
  await panel.getByTestId('run-row').last().click()
  await panel.getByRole('tab', { name: 'Response' }).click()
  await expect(panel.getByTestId('inspector')).toContainText(payload)
  expect(await page.locator('img[src="x"]').count()).toBe(0)
  expect(await panel.locator('img').count()).toBe(0)
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
})

test('a session exported and imported again shows the same runs', async ({ page }, testInfo) => {
  await send(page, 'Note: call mum, then list my notes')
  await send(page, 'What is 6 * 7?')
  await waitForRun(page)
  const panel = devtools(page)
  await expect(panel.getByTestId('run-row').first()).not.toContainText('…')
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

test('the panel keeps its styles to itself and the host page cannot restyle it', async ({ page }) => {
  const before = await demo(page)
    .getByRole('button', { name: 'Send' })
    .evaluate((button) => {
      const style = getComputedStyle(button)
      return [style.backgroundColor, style.fontFamily, style.borderRadius]
    })
  const panel = devtools(page)
  await page.addStyleTag({ content: 'button { background: rgb(255, 0, 0) !important; font-family: serif !important }' })
  const toolbarButton = panel.getByRole('button', { name: 'Export' })
  expect(await toolbarButton.evaluate((button) => getComputedStyle(button).backgroundColor)).not.toBe('rgb(255, 0, 0)')
  // The panel's own stylesheet lives in its shadow root: nothing of it reaches the page.
  const leaked = await page.evaluate(() =>
    [...document.styleSheets].some((sheet) =>
      [...sheet.cssRules].some((rule) => rule.cssText.includes('.toolbar') || rule.cssText.includes('.waterfall')),
    ),
  )
  expect(leaked).toBe(false)
  expect(before[0]).not.toBe('rgb(255, 0, 0)')
})

test('the panel is usable by keyboard and has names for screen readers', async ({ page }) => {
  await send(page, 'Note: buy bread, then list my notes')
  await waitForRun(page)
  const panel = devtools(page)
  await expect(panel.getByRole('listbox')).toBeVisible()
  await expect(panel.getByRole('toolbar', { name: 'Devtools' })).toBeVisible()
  await expect(panel.getByRole('tablist', { name: 'Run views' })).toBeVisible()
  await panel.getByRole('button', { name: /^add_note/ }).focus()
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
    const host = [...document.querySelectorAll('[data-advisor-chain-devtools-host]')].at(-1)!
    const root = host.shadowRoot!
    const start = performance.now()
    root.querySelector<HTMLButtonElement>('button[aria-label="Open advisor-chain devtools"]')!.click()
    while (!root.querySelector('[data-testid="run-row"]')) await new Promise(requestAnimationFrame)
    await new Promise(requestAnimationFrame)
    return performance.now() - start
  })

  await panel.getByRole('searchbox', { name: 'Search runs' }).fill('long investigation')
  await panel.getByRole('option', { name: /A long investigation: ok, 200 rounds/ }).click()
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
