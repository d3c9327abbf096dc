import { expect, test } from '@playwright/test'

// The app built from the packed tarball (build.mjs): what a user installs, not the source.

test('a tool round with a scripted model, then the run in the devtools panel', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto('/')
  await page.getByRole('button', { name: 'Ask' }).click()
  await expect(page.getByTestId('message-assistant')).toContainText('add({"a":2,"b":3})')
  await expect(page.getByTestId('message-assistant')).toContainText('The sum is 5.')

  await page.getByRole('button', { name: 'Open advisor-chain devtools' }).click()
  const run = page.getByTestId('run-row')
  await expect(run).toHaveCount(1)
  await expect(run).toContainText('What is 2 + 3?')
  await run.click()
  await expect(page.getByTestId('timeline-tool')).toHaveCount(1)
  await expect(page.getByTestId('timeline-tool')).toContainText('add')
  expect(errors).toEqual([])
})

test('without enabled, a production build renders no devtools and says so once in the console', async ({ page }) => {
  const notes: string[] = []
  page.on('console', (message) => notes.push(message.text()))
  await page.goto('/?default')
  await page.getByRole('button', { name: 'Ask' }).click()
  await expect(page.getByTestId('message-assistant')).toContainText('The sum is 5.')
  await expect(page.locator('[data-advisor-chain-devtools-host]')).toHaveCount(0)
  expect(
    notes.filter((note) => note.includes('the devtools render nothing in a production build; pass enabled')),
  ).toHaveLength(1)
})

test("the WebLLM worker entry runs, built by Vite from the app's own WebLLM", async ({ page }) => {
  await page.goto('/')
  const started = page.waitForEvent('worker')
  await page.getByRole('button', { name: 'Start the WebLLM worker' }).click()
  const worker = await started
  // The handler is installed once WebLLM's module has loaded in the worker.
  await expect.poll(() => worker.evaluate(() => typeof self.onmessage)).toBe('function')
  await expect(page.getByTestId('worker')).toHaveText('started')
})
