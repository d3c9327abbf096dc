import { expect, test, type Page } from '@playwright/test'
import { forkRound, installScriptedModel, waitForRun } from 'advisor-chain/playwright'
import { devtools, keptRuns, openDemo, send } from './support'

// Fork and re-run: a two-round tool run (the model asks `calculate`, then answers from its result)
// re-run from round 2 with the tool result edited. The model is scripted: its third reply is the
// fork's answer, so a fork that asked the model for round 1 again would get the wrong reply.

const result = '{"expression":"6 * 7","result":42}'
const edited = '{"expression":"6 * 7","result":43}'

async function recordToolRun(page: Page): Promise<string> {
  await installScriptedModel(page, [
    { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '6 * 7' } }] },
    'It is 42.',
    'It is 43.',
  ])
  await send(page, 'What is 6 * 7?')
  const run = await waitForRun(page)
  expect(run.rounds.map((round) => round.toolCalls.map((call) => call.result))).toEqual([[result], []])
  return run.runId
}

test('"Re-run from here" on round 2 with an edited tool result shows the fork next to the original', async ({
  page,
}) => {
  await openDemo(page)
  await recordToolRun(page)
  const panel = devtools(page)

  await panel.getByTestId('timeline-round').nth(1).click()
  await panel.getByTestId('inspector').getByRole('tab', { name: 'Re-run' }).click()
  const resultBox = panel.getByRole('textbox', { name: 'Result of calculate (c1)' })
  await expect(resultBox).toHaveValue(result)
  await resultBox.fill(edited)
  await panel.getByRole('button', { name: 'Re-run from here' }).click()

  const compare = panel.getByTestId('compare')
  await expect(compare).toBeVisible()
  await expect(compare.getByTestId('first-difference')).toHaveText('First difference: round 2.')
  await expect(compare.getByTestId('compare-round')).toHaveCount(2)
  await expect(compare.getByTestId('compare-round').nth(0)).toHaveAttribute('data-differs', 'false')
  await expect(compare.getByTestId('compare-round').nth(0)).toContainText('from the original')
  await expect(compare.getByTestId('compare-round').nth(1)).toHaveAttribute('data-differs', 'true')
  await expect(compare.getByTestId('original-answer')).toHaveText('It is 42.')
  await expect(compare.getByTestId('fork-answer')).toHaveText('It is 43.')
  await expect(compare.getByTestId('compare-prompt-summary')).toContainText(
    "1 message in the fork's prompt not in the original's, 1 of the original's not in the fork's.",
  )
  await expect(compare.getByTestId('compare-detail')).toContainText('"result": 43')
  await expect(panel.getByTestId('run-row').first()).toContainText('fork of')
  await expect(panel.getByTestId('run-row')).toHaveCount(2)
  await page.screenshot({ path: test.info().outputPath('fork-compare.png') })
})

test('"Re-run from here" on a run restored after a reload works as on an imported run', async ({ page }) => {
  await openDemo(page)
  await recordToolRun(page)
  await expect.poll(() => keptRuns(page)).toBe(1)
  await page.reload()
  const panel = devtools(page)
  await expect(panel.locator('.detail-head')).toContainText('from a previous page load')
  await installScriptedModel(page, ['It is 43.'])

  await panel.getByTestId('timeline-round').nth(1).click()
  await panel.getByTestId('inspector').getByRole('tab', { name: 'Re-run' }).click()
  await panel.getByRole('textbox', { name: 'Result of calculate (c1)' }).fill(edited)
  await panel.getByRole('button', { name: 'Re-run from here' }).click()

  const compare = panel.getByTestId('compare')
  await expect(compare.getByTestId('first-difference')).toHaveText('First difference: round 2.')
  await expect(compare.getByTestId('original-answer')).toHaveText('It is 42.')
  await expect(compare.getByTestId('fork-answer')).toHaveText('It is 43.')
  await expect(panel.getByTestId('run-row')).toHaveCount(2)
})

test('a test forks a run through advisor-chain/playwright and reads the fork like any run', async ({ page }) => {
  await openDemo(page)
  const runId = await recordToolRun(page)

  const forkId = await forkRound(page, { runId, round: 2, edits: { toolResults: { c1: edited } } })
  const fork = await waitForRun(page)

  expect(fork.runId).toBe(forkId)
  expect(fork.status).toBe('ok')
  expect(fork.finalText).toBe('It is 43.')
  expect(fork.forkOf).toEqual({ runId, round: 2 })
  // The fork's rounds are numbered on from round 2; round 1 came from the original's trace.
  expect(fork.rounds.map((round) => round.round)).toEqual([2])
})
