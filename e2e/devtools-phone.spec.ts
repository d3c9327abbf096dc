import { expect, test, type Locator, type Page } from '@playwright/test'
import { waitForRun } from 'advisor-chain/playwright'
import { devtools, openDemo, send } from './support'

// The docked panel on a phone (390×844), after a run with a tool round: its toolbar and Close
// button stay on screen while its content scrolls, the run's timeline is in view without
// scrolling, and Next.js's dev indicator (a 36 px round button 20 px from the bottom-left corner,
// checked as a 40×40 box there) covers no run row.

const VIEWPORT = { width: 390, height: 844 }
const INDICATOR = { left: 20, top: VIEWPORT.height - 60, right: 60, bottom: VIEWPORT.height - 20 }

test.use({ viewport: VIEWPORT })

/** Where an element is visible: its box cut by every box that clips it, or null when nothing of it shows. */
async function visibleBox(locator: Locator) {
  return locator.evaluate((element) => {
    let box = { left: 0, top: 0, right: innerWidth, bottom: innerHeight }
    const cut = (rect: { left: number; top: number; right: number; bottom: number }) => {
      box = {
        left: Math.max(box.left, rect.left),
        top: Math.max(box.top, rect.top),
        right: Math.min(box.right, rect.right),
        bottom: Math.min(box.bottom, rect.bottom),
      }
    }
    cut(element.getBoundingClientRect())
    for (let node = element.parentElement ?? element.getRootNode(); node;) {
      if (node instanceof ShadowRoot) node = node.host
      if (!(node instanceof Element)) break
      if (getComputedStyle(node).overflow !== 'visible') cut(node.getBoundingClientRect())
      node = node.parentElement ?? node.getRootNode()
      if (node === document) break
    }
    return box.right - box.left >= 1 && box.bottom - box.top >= 1 ? box : null
  })
}

/** The element is wholly on screen, and the topmost element at its centre is it (nothing covers it). */
async function expectOnScreen(locator: Locator, name: string) {
  const box = await locator.evaluate((element) => {
    const rect = element.getBoundingClientRect()
    const x = rect.left + rect.width / 2
    const y = rect.top + rect.height / 2
    const hit = (element.getRootNode() as ShadowRoot).elementFromPoint(x, y)
    return {
      top: rect.top,
      bottom: rect.bottom,
      left: rect.left,
      right: rect.right,
      onTop: hit === element || element.contains(hit),
    }
  })
  expect(box.top, `${name}: top`).toBeGreaterThanOrEqual(0)
  expect(box.left, `${name}: left`).toBeGreaterThanOrEqual(0)
  expect(box.bottom, `${name}: bottom`).toBeLessThanOrEqual(VIEWPORT.height)
  expect(box.right, `${name}: right`).toBeLessThanOrEqual(VIEWPORT.width)
  expect(box.onTop, `${name}: nothing covers its centre`).toBe(true)
}

/** The run rows whose visible part meets the indicator's corner. */
async function rowsUnderIndicator(page: Page): Promise<string[]> {
  const under: string[] = []
  for (const row of await devtools(page).getByTestId('run-row').all()) {
    const box = await visibleBox(row)
    if (!box) continue
    const overlaps =
      box.left < INDICATOR.right &&
      box.right > INDICATOR.left &&
      box.top < INDICATOR.bottom &&
      box.bottom > INDICATOR.top
    if (overlaps)
      under.push(`${(await row.innerText()).split('\n')[0]} at ${Math.round(box.top)}–${Math.round(box.bottom)}`)
  }
  return under
}

test('on a phone the panel keeps its toolbar, shows the timeline and leaves the dev indicator corner', async ({
  page,
}) => {
  await openDemo(page)
  const panel = devtools(page)
  await expect(panel.getByTestId('devtools-dock')).toBeVisible()
  for (let index = 0; index < 3; index++) {
    await send(page, `Note: buy bread ${index + 1}, then list my notes`)
    await waitForRun(page)
  }
  await expect(panel.getByTestId('run-row')).toHaveCount(3)
  await expect(panel.locator('[data-testid="run-row"][data-status="running"]')).toHaveCount(0)
  await page.screenshot({ path: test.info().outputPath('phone-after-run.png') })

  const toolbar = panel.getByRole('toolbar', { name: 'Devtools' })
  const close = panel.getByRole('button', { name: 'Close devtools' })
  // The selected run's timeline, in view without scrolling anything.
  const firstRow = panel.getByTestId('timeline-round').first()
  await expect(firstRow).toBeAttached()
  await expectOnScreen(firstRow, 'the first timeline row')
  expect(await rowsUnderIndicator(page), 'run rows under the dev indicator').toEqual([])

  // Scrolling inside the panel moves its content, never its toolbar: the focus moving to a control
  // below the fold, then the wheel over the panel's content.
  await panel.getByRole('tab', { name: 'Raw' }).focus()
  await expectOnScreen(toolbar, 'the toolbar, after a focus below the fold')
  await expectOnScreen(close, 'the Close button, after a focus below the fold')
  const dock = (await panel.getByTestId('devtools-dock').boundingBox())!
  await page.mouse.move(dock.x + dock.width / 2, dock.y + dock.height * 0.6)
  for (let step = 0; step < 6; step++) await page.mouse.wheel(0, 400)
  await page.screenshot({ path: test.info().outputPath('phone-scrolled.png') })
  await expectOnScreen(toolbar, 'the toolbar, after the wheel')
  await expectOnScreen(close, 'the Close button, after the wheel')
  await panel.getByRole('searchbox', { name: 'Search runs' }).focus()
  await expectOnScreen(toolbar, 'the toolbar, with the run list in view')
  // The run list in view is clear of the indicator's corner.
  expect(await visibleBox(panel.getByTestId('run-row').first()), 'a run row in view').not.toBeNull()
  expect(await rowsUnderIndicator(page), 'run rows under the dev indicator, scrolled').toEqual([])
  await close.click()
  await expect(panel.getByTestId('devtools-dock')).toHaveCount(0)
})
