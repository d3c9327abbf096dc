import { expect, test, type Page } from '@playwright/test'

// Served by the Vite dev server, one port above the demo's (see playwright.config.ts): the page
// imports the library's source.
const PAGE = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4179) + 1}/e2e/pages/memory.html`

async function openMemoryPage(page: Page): Promise<void> {
  await page.goto(PAGE)
  await expect(page.locator('#status')).toHaveText('ready')
}

async function send(page: Page, text: string): Promise<void> {
  const before = await page.locator('#transcript li').count()
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(page.locator('#transcript li')).toHaveCount(before + 2)
}

test('a conversation survives a page reload and is replayed to the model', async ({ page }) => {
  await openMemoryPage(page)
  await send(page, 'Hello')
  await page.reload()
  await expect(page.locator('#status')).toHaveText('ready')
  await expect(page.locator('#transcript li')).toHaveText(['Hello', 'I remember 0 earlier message(s).'])

  await send(page, 'Still there?')
  await expect(page.locator('#transcript li').last()).toHaveText('I remember 2 earlier message(s).')
})

test('two tabs adding to one conversation at once lose nothing', async ({ context }) => {
  const [tabA, tabB] = [await context.newPage(), await context.newPage()]
  await openMemoryPage(tabA)
  await openMemoryPage(tabB)
  const write = (tab: Page, prefix: string) =>
    tab.evaluate(
      (prefix) => Promise.all(Array.from({ length: 30 }, (_, i) => window.memoryPage.add('shared', [`${prefix}${i}`]))),
      prefix,
    )
  await Promise.all([write(tabA, 'a'), write(tabB, 'b')])
  const texts = await tabA.evaluate(async () =>
    (await window.memoryPage.read('shared')).map((message) => (message.role === 'user' ? message.text : '')),
  )
  expect(texts).toHaveLength(60)
  expect(new Set(texts).size).toBe(60)
})

test('a save cut off by closing the page leaves the old or the new conversation, never a part', async ({ context }) => {
  const writer = await context.newPage()
  await openMemoryPage(writer)
  await writer.evaluate(() => window.memoryPage.add('big', ['before the save']))
  await writer.evaluate(() => window.memoryPage.startBigSave('big', 5000))
  await writer.waitForFunction(() => window.memoryPage.saveStarted)
  await writer.close()

  const reader = await context.newPage()
  await openMemoryPage(reader)
  const stored = await reader.evaluate(async () => (await window.memoryPage.read('big')).length)
  test.info().annotations.push({ type: 'outcome', description: stored === 1 ? 'rolled back' : 'committed' })
  expect([1, 5000]).toContain(stored)
})
