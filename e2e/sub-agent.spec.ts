import { expect, test } from '@playwright/test'
import { demo, devtools, openDemo, send } from './support'

// The demo's researcher sub-agent (agentTool) on the offline demo's scripted model: the assistant
// hands it a task, the researcher reads the page with a tool of its own, and its answer comes back
// as the tool's result. The chat shows the researcher's steps under the tool card; the devtools
// nest its run under the assistant's, draw it inside the tool's span, and re-run one of its rounds.

test('a turn through the researcher sub-agent: nested in the chat and the devtools, and re-run from a round', async ({
  page,
}) => {
  await openDemo(page)
  const answer = await send(page, 'Ask the researcher what this page is about')
  await expect(answer).toContainText('The researcher says: The page is', { timeout: 15_000 })

  // Under the researcher's card: its own text and its own tool call, done.
  const steps = demo(page).getByTestId('agent-parts')
  await expect(steps).toContainText('Reading the page first.')
  await expect(steps.getByTestId('tool-call')).toHaveAttribute('data-state', 'done')
  await expect(steps.getByTestId('tool-call')).toContainText('page_outline')

  const panel = devtools(page)
  // The run list: the sub-agent's run right under the assistant's, indented.
  const rows = panel.getByTestId('run-row')
  await expect(rows).toHaveCount(2, { timeout: 15_000 })
  await expect(rows.nth(0)).toHaveAttribute('data-depth', '0')
  await expect(rows.nth(1)).toHaveAttribute('data-depth', '1')
  await expect(rows.nth(1)).toContainText('sub-agent · researcher')
  await expect(panel.getByTestId('sub-agent-figures')).toContainText('1 sub-agent run inside')
  await expect(panel.getByTestId('sub-agent-figures')).toContainText('1 tool call')

  // The timeline: the researcher's run is one bar under its tool call, until expanded.
  const agentRow = panel.getByTestId('timeline-agent')
  await expect(agentRow).toHaveAttribute('aria-expanded', 'false')
  await expect(panel.locator('[data-testid^="timeline-"][data-depth="1"]')).toHaveCount(0)
  await agentRow.click()
  await expect(agentRow).toHaveAttribute('aria-expanded', 'true')
  const nestedRounds = panel.locator('[data-testid="timeline-round"][data-depth="1"]')
  await expect(nestedRounds).toHaveCount(2, { timeout: 15_000 })
  await expect(panel.locator('[data-testid="timeline-tool"][data-depth="1"]')).toContainText('page_outline')

  // Re-run the researcher's second round from inside the assistant's timeline.
  await nestedRounds.nth(1).click()
  await expect(panel.getByTestId('inspector')).toContainText('Round 2')
  await panel.getByTestId('inspector').getByRole('tab', { name: 'Re-run' }).click()
  await panel.getByRole('button', { name: 'Re-run from here' }).click()
  await expect(rows).toHaveCount(3, { timeout: 15_000 })
  const fork = rows.filter({ hasText: 'fork of' })
  await expect(fork).toHaveCount(1)
  await fork.click()
  // A fork may open on its comparison with the original; its own timeline is a tab away.
  await panel.getByRole('tab', { name: 'Timeline' }).click()
  await expect(panel.getByTestId('timeline-round')).toHaveCount(1, { timeout: 15_000 })
  await expect(panel.getByTestId('timeline-model')).toContainText('The page is', { timeout: 15_000 })
  await page.screenshot({ path: test.info().outputPath('sub-agent.png') })
})
