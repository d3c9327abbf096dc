import { expect, test, type Page } from '@playwright/test'
import type { TraceEventOf } from 'advisor-chain'
import { readTrace, waitForRun } from 'advisor-chain/playwright'
import { demo, devtools, openDemo, send } from './support'

// "Memory: session" in the demo, on the offline model (no window of its own: the demo gives it a
// small one): a longer conversation fills the window, the session compacts after a turn, the
// devtools draw the compaction as its own row, and the chat still shows every turn with a quiet
// marker where the model's view begins.

/** A question of about 150 tokens that the offline model repeats back: each turn adds about 300. */
const question = (turn: number) =>
  `repeat: Turn ${turn}. ${'The advisor chain keeps the conversation in a session log, and compaction keeps the view inside the window. '.repeat(5)}`

async function chooseSessionMemory(page: Page) {
  await demo(page).getByRole('tab', { name: 'Advisors' }).click()
  await demo(page)
    .getByRole('radio', { name: /Session: compacted/ })
    .check()
}

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

test('a long conversation on a session is compacted to the window; the chat keeps every turn and marks the view', async ({
  page,
}) => {
  await chooseSessionMemory(page)
  const marker = demo(page).getByTestId('view-start')
  const users = demo(page).getByTestId('message-user')
  let turns = 0
  // Turn by turn until the session compacts (the window holds a few turns of this size).
  while ((await marker.count()) === 0 && turns < 10) {
    turns++
    await (await send(page, question(turns))).getByText(`Turn ${turns}.`).waitFor()
    await waitForRun(page)
    await expect(demo(page).getByRole('button', { name: 'Send', exact: true })).toBeVisible()
  }
  await expect(marker).toHaveCount(1)
  expect(turns).toBeGreaterThan(1)

  // The chat shows every turn, those compaction covered above the marker.
  await expect(users).toHaveCount(turns)
  await expect(users.first()).toContainText('Turn 1.')
  const covered = await marker.locator('xpath=preceding-sibling::*[@data-testid="message-user"]').count()
  expect(covered).toBeGreaterThan(0)
  expect(covered).toBeLessThan(turns)

  // The devtools draw the compaction of the last run as its own row: what left the view, tokens before → after.
  const row = devtools(page).getByTestId('compaction')
  await expect(row).toContainText('COMPACTED')
  await expect(row).toContainText(/\d+ events? left the view · token-count \(context-window\)/)
  const [tokensBefore, tokensAfter] = (/~(\d+) → (\d+) tokens/.exec((await row.textContent()) ?? '') ?? [])
    .slice(1)
    .map(Number)
  expect(tokensAfter).toBeLessThan(tokensBefore!)
  await row.getByText('what left the view').click()
  await expect(row.getByTestId('compaction-left').locator('li').first()).toContainText(/^(user|assistant|tool): /)

  // The next turn sends the model only its view: the covered turns are not in the request.
  await send(page, question(turns + 1))
  const run = await waitForRun(page)
  const request = (await readTrace(page)).find(
    (event): event is TraceEventOf<'model-request'> => event.type === 'model-request' && event.runId === run.runId,
  )!
  const sent = JSON.stringify(request.messages)
  expect(sent).not.toContain('Turn 1.')
  expect(sent).toContain(`Turn ${turns}.`)

  // A reload restores the whole log from IndexedDB, the marker where the view begins.
  await page.reload()
  await expect(users).toHaveCount(turns + 1)
  await expect(marker).toHaveCount(1)
})
