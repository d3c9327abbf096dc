import { waitForRun } from 'advisor-chain/playwright'
import { expect, test } from '@playwright/test'
import { demo, devtools, openDemo, send } from './support'

// Local first in the demo: the offline model stands in for an engine on the device and fails the
// round ("cannot run on this device"); the scripted remote model answers it instead.

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
