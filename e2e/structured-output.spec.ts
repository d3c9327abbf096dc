import { expect, test, type Page } from '@playwright/test'
import { waitForRun } from 'advisor-chain/playwright'
import { demo, devtools, openDemo } from './support'

async function planTrip(page: Page, city: string) {
  const app = demo(page)
  await app.getByRole('tab', { name: 'Structured output' }).click()
  await app.getByLabel('Day trip to').fill(city)
  await app.getByRole('button', { name: 'Plan' }).click()
}

/** Which schema validator chunks the page loaded. */
function validatorChunks(page: Page): string[] {
  const loaded: string[] = []
  page.on('request', (request) => {
    const file = request.url().split('/').pop() ?? ''
    if (/^(ajv|2020|interpreting-validator|json-validator)/.test(file) || /ajv|cfworker|interpreting/.test(file))
      loaded.push(file)
  })
  return loaded
}

test('an invalid plan goes back with its errors and the valid one becomes a card', async ({ page }, testInfo) => {
  await openDemo(page)
  await planTrip(page, 'Porto')
  await expect(page.getByTestId('trip-card')).toContainText('A day in Porto')
  await expect(page.getByTestId('trip-card').getByRole('listitem')).toHaveCount(4)
  const run = await waitForRun(page)
  expect(run.validations.map((attempt) => attempt.valid)).toEqual([false, true])
  expect(run.validations[0]!.errors).toContain('/budgetEUR: must be number')
  const panel = devtools(page)
  await expect(panel.getByTestId('timeline-validation')).toHaveCount(2)
  await panel.getByTestId('timeline-validation').first().click()
  const inspector = panel.getByTestId('inspector')
  await expect(inspector).toContainText('Validation attempt 1: invalid')
  await expect(inspector.getByRole('listitem').filter({ hasText: '/budgetEUR: must be number' })).toHaveCount(1)
  await expect(inspector).toContainText(/Output JSON validation failed because of: .*\/budgetEUR: must be number/)
  await panel.getByTestId('timeline-validation').last().click()
  await expect(inspector).toContainText('Validation attempt 2: valid')
  await page.screenshot({ path: testInfo.outputPath('trip-card.png') })
})

test('with validation off, the invalid plan fails with the raw text', async ({ page }) => {
  await openDemo(page)
  await demo(page).getByRole('tab', { name: 'Structured output' }).click()
  await demo(page)
    .getByLabel(/Validate and retry/)
    .uncheck()
  await planTrip(page, 'Porto')
  await expect(page.getByTestId('trip-error')).toContainText('budgetEUR')
  await expect(page.getByTestId('trip-card')).toHaveCount(0)
  expect((await waitForRun(page)).validations).toEqual([])
})

test("under Content-Security-Policy script-src 'self' validation still works, fails and retries", async ({ page }) => {
  await page.route(
    (url) => url.pathname === '/' || url.pathname.endsWith('.html'),
    async (route) => {
      const response = await route.fetch()
      await route.fulfill({
        response,
        headers: { ...response.headers(), 'content-security-policy': "script-src 'self'; worker-src 'self' blob:" },
      })
    },
  )
  await page.addInitScript(() => {
    const seen: string[] = ((window as { __cspViolations?: string[] }).__cspViolations = [])
    document.addEventListener('securitypolicyviolation', (event) => seen.push(event.blockedURI))
  })
  const chunks = validatorChunks(page)
  await openDemo(page)
  await planTrip(page, 'Braga')
  await expect(page.getByTestId('trip-card')).toContainText('A day in Braga')
  const run = await waitForRun(page)
  expect(run.validations.map((attempt) => attempt.valid)).toEqual([false, true])
  expect(run.validations[0]!.errors).toContain('/budgetEUR: must be number')
  // The fast validator takes the trip schema: no probe of `new Function`, no validator chunk to load.
  expect(await page.evaluate(() => (window as { __cspViolations?: string[] }).__cspViolations)).not.toContain('eval')
  expect(chunks).toEqual([])
})

test('the trip card fills in while the plan streams, and starts over when a retry begins', async ({ page }) => {
  await openDemo(page)
  await demo(page).getByRole('tab', { name: 'Structured output' }).click()
  // Every state of the card the page showed, as the plan streamed: its stops and whether the budget was there.
  await page.evaluate(() => {
    const seen: Array<{ stops: number; budget: boolean; streaming: boolean; title: string }> = []
    Object.assign(window, { tripStates: seen })
    new MutationObserver(() => {
      const card = document.querySelector('[data-testid="trip-card"]')
      if (!card) return
      const state = {
        stops: card.querySelectorAll('li').length,
        budget: (card.textContent ?? '').includes('Budget'),
        streaming: card.getAttribute('data-streaming') === 'true',
        title: card.querySelector('h3')?.textContent ?? '',
      }
      const last = seen.at(-1)
      if (JSON.stringify(last) !== JSON.stringify(state)) seen.push(state)
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  })
  await planTrip(page, 'Porto')
  await expect(page.getByTestId('trip-card')).toHaveAttribute('data-streaming', 'false')
  await expect(page.getByTestId('trip-card').getByRole('listitem')).toHaveCount(4)
  await expect(page.getByTestId('trip-card')).toContainText('Budget about €80')
  const states = await page.evaluate(
    () =>
      (
        window as unknown as {
          tripStates: Array<{ stops: number; budget: boolean; streaming: boolean; title: string }>
        }
      ).tripStates,
  )
  const streamed = states.filter((state) => state.streaming)
  // The title showed before any stop, stops appeared one by one, and the budget came last.
  expect(streamed.some((state) => state.title === 'A day in Porto' && state.stops === 0)).toBe(true)
  for (const count of [1, 2, 3]) expect(streamed.some((state) => state.stops === count && !state.budget)).toBe(true)
  // The invalid first attempt had four stops and a budget; the retry started the card over.
  const restart = streamed.findIndex((state, i) => i > 0 && state.stops < streamed[i - 1]!.stops)
  expect(restart).toBeGreaterThan(0)
  expect(states.at(-1)).toMatchObject({ stops: 4, budget: true, streaming: false })
  const run = await waitForRun(page)
  expect(run.validations.map((attempt) => attempt.valid)).toEqual([false, true])
  await expect(devtools(page).getByTestId('timeline-validation')).toHaveCount(2)
})
