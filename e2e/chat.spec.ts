import { clearTrace, waitForRun } from 'advisor-chain/playwright'
import { expect, test } from '@playwright/test'
import { demo, devtools, idle, openDemo, recorded, replayServer, send, useOpenAICompatible } from './support'

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

test('without a usable GPU the page uses the offline demo and says why', async ({ page }, testInfo) => {
  await expect(page.getByTestId('model-pill')).toHaveText('Offline demo — scripted replies')
  await expect(page.getByTestId('webgpu-status')).toContainText('found no usable GPU')
  await expect(page.getByTestId('webgpu-status')).toContainText('Using the offline scripted demo')
  await page.screenshot({ path: testInfo.outputPath('first-load.png'), fullPage: true })
})

test('a scripted multi-round tool conversation saves a note and lists it', async ({ page }, testInfo) => {
  const answer = await send(page, 'Note: buy oat milk, then list my notes')
  await expect(answer).toContainText('Your notes: #1 buy oat milk.')
  await expect(answer.getByTestId('tool-call')).toHaveCount(2)
  const run = await waitForRun(page)
  expect(run.status).toBe('ok')
  expect(run.rounds.flatMap((round) => round.toolCalls.map((call) => [call.name, call.arguments]))).toEqual([
    ['add_note', { text: 'buy oat milk' }],
    ['list_notes', {}],
  ])
  await demo(page).getByRole('tab', { name: 'Tools' }).click()
  await expect(page.getByTestId('notes')).toContainText('buy oat milk')
  await page.screenshot({ path: testInfo.outputPath('tool-conversation.png'), fullPage: true })
})

test('parallel tool calls run in one round', async ({ page }) => {
  const answer = await send(page, 'What is (12 + 30) * 1.5 and what time is it?')
  await expect(answer).toContainText('(12 + 30) * 1.5 = 63')
  const run = await waitForRun(page)
  expect(run.rounds[0]!.toolCalls.map((call) => call.name)).toEqual(['calculate', 'local_time'])
})

test('a returnDirect tool answers without a second model call', async ({ page }) => {
  const answer = await send(page, 'Roll a dice')
  await expect(answer).toContainText(/🎲 [1-6] \(between 1 and 6\)/)
  const run = await waitForRun(page)
  expect([run.rounds.length, run.finishReason]).toEqual([1, 'returnDirect'])
})

test('a tool changes the page theme', async ({ page }) => {
  await send(page, 'Switch to dark theme')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
})

test('Stop ends a streaming answer at once', async ({ page }, testInfo) => {
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Tell me a long story')
  await demo(page).getByRole('button', { name: 'Send' }).click()
  const answer = page.getByTestId('message-assistant').last()
  await expect(answer).toContainText('Once upon a time')
  await demo(page).getByRole('button', { name: 'Stop' }).click()
  await expect(answer).toContainText('Stopped.')
  await idle(page)
  const streamed = await answer.locator('.text').textContent()
  await page.waitForTimeout(300)
  expect(await answer.locator('.text').textContent()).toBe(streamed)
  expect((await waitForRun(page)).status).toBe('aborted')
  await page.screenshot({ path: testInfo.outputPath('stopped.png') })
})

test('a provider error is shown clearly, with a way to retry', async ({ page }) => {
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Show me a provider error')
  await demo(page).getByRole('button', { name: 'Send' }).click()
  await expect(page.getByTestId('chat-error')).toContainText('HTTP 401 (invalid_api_key)')
  await expect(page.getByTestId('chat-error').getByRole('button', { name: 'Retry' })).toBeVisible()
  expect((await waitForRun(page)).status).toBe('error')
})

test('the Retry Advisor retries a flaky provider and the devtools show the retry', async ({ page }) => {
  const answer = await send(page, 'Try a flaky provider')
  await expect(answer).toContainText('second attempt')
  expect((await waitForRun(page)).retries).toBe(1)
  await expect(devtools(page).getByTestId('timeline-retry')).toHaveCount(1)
})

test('an OpenAI-compatible server on loopback, replaying recorded streams, runs the tool loop', async ({
  page,
}, testInfo) => {
  const server = await replayServer(
    { body: recorded('openai/chat-stream-tool-call-role-with-tool.sse') },
    { body: recorded('openrouter/chat-stream-usage.sse') },
  )
  try {
    await useOpenAICompatible(page, server.baseURL, 'gpt-4o-mini', 'sk-e2e-0123456789abcdefghij')
    await clearTrace(page)
    const answer = await send(page, 'What is the capital of the UK?')
    await expect(answer).toContainText('test response')
    // The recorded model asked for a tool this page does not have: the loop told it so.
    await expect(answer.getByTestId('tool-call')).toContainText('get_capital')
    expect(server.requests).toHaveLength(2)
    expect(server.requests[0]!.authorization).toBe('Bearer sk-e2e-0123456789abcdefghij')
    expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj',
      content:
        "Error: unknown tool 'get_capital'. Available tools: local_time, add_note, list_notes, delete_note, set_theme, calculate, random_number, researcher.",
    })
    const run = await waitForRun(page)
    expect(run.rounds).toHaveLength(2)
    expect(JSON.stringify(await page.evaluate(() => window.__advisorChain!.events))).not.toContain(
      'sk-e2e-0123456789abcdefghij',
    )
    await page.screenshot({ path: testInfo.outputPath('openai-compatible.png'), fullPage: true })
  } finally {
    await server.close()
  }
})

test('a provider error from a real HTTP response is shown with its advice', async ({ page }) => {
  const server = await replayServer({
    status: 401,
    contentType: 'application/json',
    body: recorded('openai/error-401-invalid-api-key.json'),
  })
  try {
    await useOpenAICompatible(page, server.baseURL)
    await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Hello?')
    await demo(page).getByRole('button', { name: 'Send' }).click()
    await expect(page.getByTestId('chat-error')).toContainText('HTTP 401 (invalid_api_key)')
    await expect(page.getByTestId('chat-error')).toContainText('Check the API key')
  } finally {
    await server.close()
  }
})

test('the devtools show every run', async ({ page }) => {
  await send(page, 'What time is it here?')
  await idle(page)
  await send(page, 'Roll a dice')
  await idle(page)
  await expect(devtools(page).getByTestId('run-row')).toHaveCount(2)
  await expect(devtools(page).getByTestId('run-row').first()).toContainText('Roll a dice')
})

test('a narrow (mobile) width still works', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 390, height: 844 })
  const answer = await send(page, 'What time is it here?')
  await expect(answer).toContainText(/It is \d/)
  await page.screenshot({ path: testInfo.outputPath('mobile.png'), fullPage: true })
})
