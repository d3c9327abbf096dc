import { waitForRun } from 'advisor-chain/playwright'
import { expect, test } from '@playwright/test'
import { demo, devtools, openDemo, send } from './support'

// Local first in the demo: the model on the device answers first and the scripted remote model
// takes the rounds it fails. The offline model stands in for an engine that cannot run here; the
// last test runs the real llama.cpp engine (its tiny test model), whose window a long message overflows.

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

test('local first: a round the local engine fails goes to the remote model, and the page and devtools say why and what it cost', async ({
  page,
}, testInfo) => {
  await demo(page).getByRole('tab', { name: 'Advisors' }).click()
  await demo(page)
    .getByRole('checkbox', { name: /Local first/ })
    .check()
  const answer = await send(page, 'Make the local engine fail')
  await expect(answer).toContainText('scripted-remote answered this round')
  await expect(answer.getByTestId('answered-by')).toHaveText(
    'Answered by scripted-remote: the round left scripted-demo (unavailable)',
  )
  const run = await waitForRun(page)
  expect(run.status).toBe('ok')
  const escalation = await page.evaluate(() =>
    window.__advisorChain!.events.find((event) => event.type === 'escalation'),
  )
  expect(escalation).toMatchObject({ from: 'scripted-demo', to: 'scripted-remote', reason: 'unavailable', round: 1 })

  const panel = devtools(page)
  await expect(panel.getByTestId('escalation-badge')).toHaveText('↑ scripted-remote · unavailable')
  // The scripted model reports no usage: the cost is an estimate, and says so.
  await expect(panel.getByTestId('run-cost')).toContainText(/~\$[\d.]+ \(estimated\) cost/)
  await page.screenshot({ path: testInfo.outputPath('local-first.png'), fullPage: true })
})

test('local first: a round the local model answers stays on the device, with what it would have cost remotely', async ({
  page,
}) => {
  await demo(page).getByRole('tab', { name: 'Advisors' }).click()
  await demo(page)
    .getByRole('checkbox', { name: /Local first/ })
    .check()
  const answer = await send(page, 'Roll a dice')
  await expect(answer.getByTestId('answered-by')).toHaveCount(0)
  await expect(devtools(page).getByTestId('escalation-badge')).toHaveCount(0)
  await expect(devtools(page).getByTestId('run-cost')).toContainText("at the fallback's price")
})

test("local first on llama.cpp: a message over the tiny model's window goes to the remote model, and the devtools say why and what it cost", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000)
  const app = demo(page)
  await app.getByRole('radio', { name: 'In this browser' }).click()
  await app.getByRole('radio', { name: 'llama.cpp (WebAssembly)' }).click()
  await app.getByRole('button', { name: 'Load with llama.cpp' }).click()
  const tiny = 'advisor-chain tiny test model (nonsense text)'
  await expect(page.getByTestId('model-pill')).toHaveText(`llama.cpp · ${tiny}`, { timeout: 30_000 })
  await app.getByRole('tab', { name: 'Advisors' }).click()
  await app.getByRole('checkbox', { name: /Local first/ }).check()

  // A byte a token: 9,000 characters and the tool instructions are over the 8,192 tokens it was loaded with.
  const answer = await send(page, `Summarise this text: ${'The quick brown fox jumps over the lazy dog. '.repeat(200)}`)
  await expect(answer.getByTestId('answered-by')).toHaveText(
    `Answered by scripted-remote: the round left ${tiny} (context-full)`,
    { timeout: 60_000 },
  )
  await expect(answer).toContainText('I am the offline demo')
  const run = await waitForRun(page)
  expect(run.status).toBe('ok')
  const escalation = await page.evaluate(() =>
    window.__advisorChain!.events.find((event) => event.type === 'escalation'),
  )
  // llama.cpp itself refused the prompt (its own words), before decoding a token.
  expect(escalation).toMatchObject({
    from: tiny,
    to: 'scripted-remote',
    reason: 'context-full',
    round: 1,
    detail: expect.stringMatching(/^llama\.cpp model '.+': .*exceeds the available context size/),
  })

  const panel = devtools(page)
  const badge = panel.getByTestId('escalation-badge')
  await expect(badge).toHaveText('↑ scripted-remote · context-full')
  await expect(badge).toHaveAttribute(
    'title',
    new RegExp(`^${tiny.replace(/[()]/g, '\\$&')} → scripted-remote: context-full`),
  )
  // The remote round is priced (the scripted model reports no usage: an estimate, and it says so).
  await expect(panel.getByTestId('run-cost')).toContainText(/~\$[\d.]+ \(estimated\) cost/)
  await page.screenshot({ path: testInfo.outputPath('local-first-llama-cpp.png'), fullPage: true })
})
