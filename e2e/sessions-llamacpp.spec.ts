import { expect, test } from '@playwright/test'
import { demo, devtools, idle, openDemo } from './support'

// A long conversation on the tiny llama.cpp model (the real wllama engine, a model made in the page)
// with the demo's session memory fitted to the model's own window: the turns fill the window, the
// session compacts, and the devtools read the compaction. The model's text is nonsense and random,
// so a turn may end in an answer, in tool calls (one round a turn here), or in the adapter's error
// for a reply that broke; whatever each turn does, the view must be compacted before it overflows.

/** A long question: the tiny model reads a byte a token, so each turn adds about 1,000 tokens to the view. */
const question = (turn: number) =>
  `Turn ${turn}: ${'what does the session keep of this conversation, and what leaves the view when it compacts? '.repeat(11)}`

test('a long conversation on the tiny llama.cpp model is compacted to its window, read from the devtools', async ({
  page,
}) => {
  test.setTimeout(420_000)
  await openDemo(page)
  const app = demo(page)
  await app.getByRole('radio', { name: 'In this browser' }).click()
  await app.getByRole('radio', { name: 'llama.cpp (WebAssembly)' }).click()
  await app.getByRole('button', { name: 'Load with llama.cpp' }).click()
  await expect(page.getByTestId('model-pill')).toHaveText('llama.cpp · advisor-chain tiny test model (nonsense text)', {
    timeout: 60_000,
  })
  await app.getByRole('tab', { name: 'Advisors' }).click()
  await app.getByRole('radio', { name: /Session: compacted/ }).check()
  // One model request a turn: the nonsense model would otherwise call tools round after round.
  await app.getByRole('spinbutton', { name: 'Max rounds' }).fill('1')

  const compacted = () =>
    page.evaluate(() => (window.__advisorChain?.events ?? []).some((event) => event.type === 'compaction'))
  const runsEnded = () =>
    page.evaluate(() => (window.__advisorChain?.events ?? []).filter((event) => event.type === 'run-end').length)
  let turns = 0
  while (!(await compacted()) && turns < 20) {
    turns++
    const ended = await runsEnded()
    await app.getByRole('textbox', { name: 'Message', exact: true }).fill(question(turns))
    await app.getByRole('button', { name: 'Send' }).click({ timeout: 10_000 })
    // The turn's run ends (an answer, the tool-round limit, or a broken reply); a tool that asks
    // first is denied.
    await expect(async () => {
      const deny = app.getByRole('button', { name: 'Deny' }).first()
      if (await deny.isVisible()) await deny.click({ timeout: 2_000 }).catch(() => {})
      expect(await runsEnded()).toBeGreaterThan(ended)
    }).toPass({ timeout: 120_000 })
    await idle(page)
  }
  // The devtools show the run that compacted (the latest) with its compaction row.
  const compaction = devtools(page).getByTestId('compaction')
  // The model's window (llama.cpp's n_ctx) is what the session fits: it compacted before it overflowed.
  await expect(compaction.first()).toContainText(
    /COMPACTED.*\d+ events? left the view · token-count \(context-window\)/,
  )
  const [before, after] = (/~(\d+) → (\d+) tokens/.exec((await compaction.first().textContent()) ?? '') ?? [])
    .slice(1)
    .map(Number)
  expect(after).toBeLessThan(before!)
  expect(turns).toBeGreaterThan(1)
  // No turn failed for the window.
  const windowErrors = await page.evaluate(
    () =>
      (window.__advisorChain?.events ?? []).filter(
        (event) =>
          event.type === 'run-end' && event.status === 'error' && /context|window/i.test(event.error?.message ?? ''),
      ).length,
  )
  expect(windowErrors).toBe(0)
})
