import { expect, test, type Locator, type Page } from '@playwright/test'
import { installScriptedModel } from 'advisor-chain/playwright'
import { demo, devtools, idle, openDemo, send } from './support'

// The demo with the devtools open, at common screen sizes: the chat input, the send button and the
// panel's close button must be on screen and not covered (the topmost element at their centre is
// them), and so must an approval card. Screenshots go to test-results for a look.

const sizes = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
]

/** What covers the centre of an element: nothing (null), or a description of what is on top. */
async function coverOf(locator: Locator): Promise<string | null> {
  await expect(locator).toBeVisible()
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect()
    const x = box.left + box.width / 2
    const y = box.top + box.height / 2
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return `off screen at ${Math.round(x)},${Math.round(y)}`
    // Inside the panel's shadow root, ask the shadow root (the document only sees its host).
    const root = element.getRootNode() as Document | ShadowRoot
    const hit = root.elementFromPoint(x, y)
    if (root instanceof ShadowRoot && document.elementFromPoint(x, y) !== root.host) return 'the page, over the panel'
    if (hit === element || element.contains(hit)) return null
    return hit ? `${hit.tagName.toLowerCase()}.${hit.className || '(no class)'}` : 'nothing'
  })
}

async function expectUsable(page: Page) {
  const controls = {
    'chat input': demo(page).getByRole('textbox', { name: 'Message', exact: true }),
    'send button': demo(page).getByRole('button', { name: 'Send' }),
    'close button': devtools(page).getByRole('button', { name: 'Close devtools' }),
  }
  for (const [name, control] of Object.entries(controls)) expect(await coverOf(control), name).toBeNull()
}

for (const size of sizes) {
  test(`at ${size.width}x${size.height} the panel leaves the chat and an approval card usable`, async ({ page }) => {
    await page.setViewportSize(size)
    await openDemo(page)
    await expect(devtools(page).getByTestId('devtools-dock')).toBeVisible()
    await expectUsable(page)
    await page.screenshot({ path: test.info().outputPath(`layout-${size.width}x${size.height}.png`) })

    // A tool call that waits for approval: its card must be usable with the panel open too.
    await installScriptedModel(page, [
      { toolCalls: [{ id: 'd1', name: 'delete_note', arguments: { id: 'n1' } }] },
      'Deleted.',
    ])
    await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Delete my first note')
    await demo(page).getByRole('button', { name: 'Send' }).click()
    const approve = demo(page).getByTestId('approval-prompt').getByRole('button', { name: 'Allow' })
    expect(await coverOf(approve), 'approve button').toBeNull()
    await page.screenshot({ path: test.info().outputPath(`layout-${size.width}x${size.height}-approval.png`) })
  })
}

test('every width from 360 to 2560 keeps the chat and the panel controls usable, docked at the bottom or right', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await openDemo(page)
  for (const width of [360, 600, 768, 1024, 1920, 2560]) {
    await page.setViewportSize({ width, height: 800 })
    await expectUsable(page)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
  await devtools(page).getByRole('button', { name: 'Dock to the right' }).click()
  await expect(devtools(page).getByTestId('devtools-dock')).toHaveClass(/right/)
  await expectUsable(page)
  await page.screenshot({ path: test.info().outputPath('layout-1440x900-right.png') })
  // Too narrow to sit beside the page: the panel docks at the bottom instead.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(devtools(page).getByTestId('devtools-dock')).toHaveClass(/bottom/)
  await expectUsable(page)
})

test('at 360 px every control of the panel toolbar is on screen', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 })
  await openDemo(page)
  const toolbar = devtools(page).getByRole('toolbar', { name: 'Devtools' })
  for (const button of await toolbar.getByRole('button').all()) {
    const box = (await button.boundingBox())!
    expect(box.x, await button.innerText()).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width, (await button.getAttribute('aria-label')) ?? undefined).toBeLessThanOrEqual(360)
  }
  await page.screenshot({ path: test.info().outputPath('layout-360x740.png') })
})

// The panel's own layout at those sizes, measured: what a row or chip shows must fit in it.

/** What does not fit in the timeline's round rows (the chips of the legend, the name, the time). */
async function roundRowOverflows(page: Page): Promise<string[]> {
  return devtools(page)
    .getByTestId('timeline-round')
    .evaluateAll((rows) =>
      rows.flatMap((row) => {
        const problems: string[] = []
        const name = row.querySelector('.name')?.textContent ?? '?'
        const names = row.querySelector<HTMLElement>('.names')!
        const box = names.getBoundingClientRect()
        if (names.scrollWidth > names.clientWidth) problems.push(`${name}: ${names.scrollWidth} > ${names.clientWidth}`)
        for (const part of names.querySelectorAll<HTMLElement>('.name, .legend, .legend > span, .dur')) {
          if (part.getClientRects().length === 0) continue // not shown at this width
          const rect = part.getBoundingClientRect()
          const label = `${name} "${part.textContent}"`
          if (part.scrollWidth > part.clientWidth)
            problems.push(`${label} cut: ${part.scrollWidth} > ${part.clientWidth}`)
          if (rect.left < box.left - 0.5 || rect.right > box.right + 0.5) problems.push(`${label} outside its row`)
          // One line: a wrapped chip is twice as tall as the row's text.
          if (rect.height > parseFloat(getComputedStyle(part).fontSize) * 1.8) problems.push(`${label} wrapped`)
        }
        const legend = names.querySelector<HTMLElement>('.legend')
        if (legend && legend.getClientRects().length > 0) {
          const edge = legend.getBoundingClientRect()
          for (const chip of legend.children) {
            const rect = chip.getBoundingClientRect()
            if (rect.right > edge.right + 0.5) problems.push(`${name} chip "${chip.textContent}" cut`)
            if (rect.bottom > edge.bottom + 0.5) problems.push(`${name} chip "${chip.textContent}" wrapped out of view`)
          }
        }
        return problems
      }),
    )
}

/** Run rows that are cut: by the list's visible box, or inside (a line of text wider than the row). */
async function runRowsCut(page: Page): Promise<string[]> {
  const list = devtools(page).getByTestId('run-list')
  return list.evaluate((scroller) => {
    const view = scroller.getBoundingClientRect()
    const problems: string[] = []
    for (const row of scroller.querySelectorAll<HTMLElement>('[data-testid="run-row"]')) {
      const rect = row.getBoundingClientRect()
      const label = row.querySelector('.label')?.textContent ?? '?'
      if (rect.bottom <= view.top || rect.top >= view.bottom) continue // scrolled out of view, not cut
      if (rect.top < view.top - 0.5 || rect.bottom > view.bottom + 0.5)
        problems.push(
          `${label}: rows ${Math.round(rect.top)}–${Math.round(rect.bottom)} in ${Math.round(view.top)}–${Math.round(view.bottom)}`,
        )
      for (const line of row.querySelectorAll<HTMLElement>('.run-title, .run-meta')) {
        const box = line.getBoundingClientRect()
        if (box.top < rect.top - 0.5 || box.bottom > rect.bottom + 0.5) problems.push(`${label}: a line sticks out`)
        if (line.scrollWidth > line.clientWidth) problems.push(`${label}: "${line.textContent}" cut`)
      }
    }
    return problems
  })
}

/** The search's placeholder, measured in the input's font against the room for text. */
async function placeholderRoom(page: Page): Promise<{ text: number; room: number }> {
  return devtools(page)
    .getByRole('searchbox', { name: 'Search runs' })
    .evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input)
      const context = document.createElement('canvas').getContext('2d')!
      context.font = style.font
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
      return { text: context.measureText(input.placeholder).width, room }
    })
}

for (const size of sizes) {
  test(`at ${size.width}x${size.height} the panel's run rows, round chips, WAIT lane and search fit`, async ({
    page,
  }) => {
    await page.setViewportSize(size)
    await openDemo(page)
    const panel = devtools(page)
    const { text, room } = await placeholderRoom(page)
    expect(text, `the placeholder needs ${Math.round(text)} px of ${Math.round(room)}`).toBeLessThanOrEqual(room)

    await installScriptedModel(page, [
      { toolCalls: [{ id: 'd1', name: 'delete_note', arguments: { id: 'n1' } }] },
      'Deleted.',
      'Hello again.',
    ])
    await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Delete my first note')
    await demo(page).getByRole('button', { name: 'Send' }).click()
    await expect(demo(page).getByTestId('approval-prompt')).toBeVisible()

    // The WAIT row while it waits: its lane has the grid lines and a bar that grows with the wait.
    const wait = panel.getByTestId('timeline-approval')
    await expect(wait).toBeAttached()
    await page.waitForTimeout(300)
    const lane = await wait.locator('.lane').evaluate((element) => {
      const box = element.getBoundingClientRect()
      const bar = element.querySelector('.bar.approval')?.getBoundingClientRect()
      return {
        width: box.width,
        grid: getComputedStyle(element).backgroundImage,
        bar: bar && { left: bar.left - box.left, width: bar.width, height: bar.height },
      }
    })
    expect(lane.width, 'the WAIT lane has room').toBeGreaterThan(40)
    expect(lane.grid, 'the WAIT lane has its grid lines').toContain('linear-gradient')
    expect(lane.bar, 'the WAIT lane has its bar').toBeDefined()
    expect(lane.bar!.width, 'the WAIT bar is drawn').toBeGreaterThan(1)
    expect(lane.bar!.height).toBeGreaterThan(4)
    expect(lane.bar!.left + lane.bar!.width).toBeLessThanOrEqual(lane.width + 0.5)
    expect(await roundRowOverflows(page), 'round rows while waiting').toEqual([])

    await demo(page).getByTestId('approval-prompt').getByRole('button', { name: 'Allow' }).click()
    await idle(page)
    await expect(panel.getByTestId('timeline-round')).toHaveCount(2)
    // Round 1 now has its three chips: the model's time, the wait and the tools'.
    await expect(panel.getByTestId('timeline-round').first().locator('.legend > span')).toHaveCount(3)
    expect(await roundRowOverflows(page), 'round rows after the approval').toEqual([])

    await send(page, 'Hello')
    await idle(page)
    await expect(panel.getByTestId('run-row')).toHaveCount(2)
    expect(await runRowsCut(page)).toEqual([])
    await page.screenshot({ path: test.info().outputPath(`panel-${size.width}x${size.height}.png`) })
  })
}

test('while a round runs the inspector names the provider without a dangling separator, and the model once known', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await openDemo(page)
  await installScriptedModel(page, [{ text: 'slowly, word by word', delayMs: 400 }])
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Hello')
  await demo(page).getByRole('button', { name: 'Send' }).click()
  const model = devtools(page).getByTestId('inspector').locator('.inspector-head .muted')
  await expect(devtools(page).getByTestId('run-row').first()).toHaveAttribute('data-status', 'running')
  // The request named no model (the model's own default): the response names it, at its end.
  await expect(model).toHaveText('scripted')
  await idle(page)
  await expect(model).toHaveText('scripted · installed-by-test')
})

for (const size of [sizes[0]!, sizes[1]!]) {
  test(`at ${size.width}x${size.height} the closed toggle leaves room for the page's bottom-right corner`, async ({
    page,
  }) => {
    await page.setViewportSize(size)
    await openDemo(page)
    await devtools(page).getByRole('button', { name: 'Close devtools' }).click()
    const toggle = devtools(page).getByRole('button', { name: 'Open advisor-chain devtools' })
    await expect(toggle).toBeVisible()
    // A page element in the corner, placed with the documented variables (and without them, to
    // show the check can see an overlap).
    const overlap = (bottom: string, right: string) =>
      page.evaluate(
        ([bottom, right]) => {
          document.getElementById('corner')?.remove()
          const corner = document.createElement('button')
          corner.id = 'corner'
          corner.textContent = 'Corner'
          corner.style.cssText = `position: fixed; z-index: 10; bottom: ${bottom}; right: ${right}; width: 140px; height: 40px; margin: 0;`
          document.body.append(corner)
          const host = document.querySelector('[data-advisor-chain-devtools-host]:last-of-type')!
          const button = host.shadowRoot!.querySelector('[data-testid="devtools-toggle"]')!.getBoundingClientRect()
          const box = corner.getBoundingClientRect()
          const width = Math.min(box.right, button.right) - Math.max(box.left, button.left)
          const height = Math.min(box.bottom, button.bottom) - Math.max(box.top, button.top)
          const onTop = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
          return {
            area: Math.max(0, width) * Math.max(0, height),
            corner: onTop === corner,
            inView: box.bottom <= innerHeight,
          }
        },
        [bottom, right],
      )
    expect((await overlap('0px', '0px')).area, 'without the variables the toggle covers the corner').toBeGreaterThan(0)
    const placed = await overlap('var(--advisor-devtools-bottom, 0px)', 'var(--advisor-devtools-right, 0px)')
    expect(placed).toEqual({ area: 0, corner: true, inView: true })
    await page.screenshot({ path: test.info().outputPath(`closed-toggle-${size.width}x${size.height}.png`) })
  })
}

test('at 1280x800 with an in-browser model chosen the settings column fits its card; the offline demo in use is not offered again', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  // A WebGPU adapter (a stand-in: this check is about the form the page shows when there is one).
  await page.addInitScript(() => {
    const adapter = {
      features: new Set(['shader-f16']),
      limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 31 },
      info: { vendor: 'test', architecture: '', isFallbackAdapter: false },
    }
    Object.defineProperty(navigator, 'gpu', { value: { requestAdapter: () => Promise.resolve(adapter) } })
  })
  await page.goto('/')
  await page.evaluate(() => localStorage.clear())
  await page.reload()
  const app = demo(page)
  await expect(app.getByRole('radio', { name: 'In this browser' })).toHaveAttribute('aria-checked', 'true')
  await expect(app.getByRole('button', { name: /Download and load|Load model/ })).toBeVisible()
  const cut = await page.locator('.side').evaluate((side) => {
    const card = side.querySelector('.card')!.getBoundingClientRect()
    const column = side.getBoundingClientRect()
    const problems: string[] = []
    // The column scrolls what does not fit in it: nothing may need to.
    if (side.scrollWidth > side.clientWidth) problems.push(`the column: ${side.scrollWidth} > ${side.clientWidth}`)
    if (card.right > column.right + 0.5) problems.push('the card sticks out of the column')
    for (const element of side.querySelectorAll<HTMLElement>('.card button, .card select, .card p, .card label')) {
      const box = element.getBoundingClientRect()
      const name = `${element.tagName.toLowerCase()} "${element.textContent?.slice(0, 30)}"`
      if (box.left < card.left - 0.5 || box.right > card.right + 0.5) problems.push(`${name} outside its card`)
      if (element.tagName !== 'SELECT' && element.scrollWidth > element.clientWidth)
        problems.push(`${name} cut: ${element.scrollWidth} > ${element.clientWidth}`)
    }
    return problems
  })
  expect(cut).toEqual([])
  await page.screenshot({ path: test.info().outputPath('demo-webllm-1280x800.png') })

  await app.getByRole('radio', { name: 'Offline demo' }).click()
  await app.getByRole('button', { name: 'Use the offline demo' }).click()
  await expect(page.getByTestId('model-pill')).toHaveText('Offline demo — scripted replies')
  await expect(app.getByRole('button', { name: 'Use the offline demo' })).toHaveCount(0)
  await expect(app.getByTestId('offline-in-use')).toHaveText('The offline demo is in use.')
})
