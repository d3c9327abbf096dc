import { waitForRun } from 'advisor-chain/playwright'
import { expect, test } from '@playwright/test'
import { demo, devtools, idle, openDemo, recorded, send } from './support'

// A recorded Anthropic stream with extended thinking, answered to the demo through the real
// AnthropicChatModel: the thinking shows as reasoning in the chat and in the devtools, never as the answer.

const THINKING = /^The user is asking me to answer "What is 2 \+ 2\?"/

test('a recorded thinking stream shows its reasoning in the chat and in the round inspector', async ({
  page,
}, testInfo) => {
  await openDemo(page)
  await page.route('https://api.anthropic.com/v1/messages', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' },
      body: recorded('anthropic/messages-stream-thinking.sse'),
    }),
  )
  const app = demo(page)
  await app.getByRole('tab', { name: 'Model' }).click()
  await app.getByRole('radio', { name: 'Anthropic' }).click()
  await app.getByLabel(/API key/).fill('sk-ant-e2e-0123456789')
  await app.getByRole('button', { name: 'Use Anthropic' }).click()
  await expect(page.getByTestId('model-pill')).toContainText('Anthropic')

  const answer = await send(page, 'What is 2 + 2?')
  await idle(page)
  await expect(answer.locator('> .text')).toHaveText('{"integer_a": 2, "integer_b": 2, "answer": 4}')
  const reasoning = answer.getByTestId('message-reasoning')
  await expect(reasoning).toContainText('Thought')
  await reasoning.locator('summary').click()
  await expect(reasoning.locator('.text')).toHaveText(THINKING)
  await expect(answer.locator('> .text')).not.toContainText('The user is asking')

  const run = await waitForRun(page)
  expect(run.status).toBe('ok')

  const panel = devtools(page)
  await panel.getByTestId('timeline-round').first().click()
  await panel.getByRole('tab', { name: 'Response' }).click()
  const inspected = panel.getByTestId('inspector').getByTestId('message-reasoning')
  await inspected.locator('summary').click()
  await expect(inspected).toContainText('The user is asking me to answer')
  await page.screenshot({ path: testInfo.outputPath('reasoning.png'), fullPage: true })
})
