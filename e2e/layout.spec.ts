import { expect, test, type Locator, type Page } from '@playwright/test'
import { installScriptedModel } from 'advisor-chain/playwright'
import { demo, devtools, openDemo } from './support'

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
      { toolCalls: [{ id: 'd1', name: 'delete_note', arguments: { index: 1 } }] },
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
