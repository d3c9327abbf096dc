import { readFileSync } from 'node:fs'
import { expect, test } from '@playwright/test'
import type { Cassette } from 'advisor-chain'
import { installReplayedModel, installScriptedModel, waitForRun } from 'advisor-chain/playwright'
import { demo, devtools, openDemo, recorded, replayServer, send, useOpenAICompatible } from './support'

test('a session recorded from a real provider replays without network, and a changed prompt fails with a diff', async ({
  page,
}, testInfo) => {
  await openDemo(page)
  const server = await replayServer(
    { body: recorded('openai/chat-stream-tool-call-role-with-tool.sse') },
    { body: recorded('openrouter/chat-stream-usage.sse') },
  )
  const question = 'What is the capital of the UK?'
  let cassette: Cassette
  let original: Awaited<ReturnType<typeof waitForRun>>
  try {
    await useOpenAICompatible(page, server.baseURL)
    await send(page, question)
    original = await waitForRun(page)
    const downloading = page.waitForEvent('download')
    await devtools(page).getByRole('button', { name: 'Cassette' }).click()
    const file = testInfo.outputPath('cassette.json')
    await (await downloading).saveAs(file)
    cassette = JSON.parse(readFileSync(file, 'utf8')) as Cassette
  } finally {
    await server.close()
  }
  expect(cassette.interactions).toHaveLength(2)

  // The server is gone: the replay needs no network.
  await openDemo(page)
  await installReplayedModel(page, cassette)
  await expect(page.getByTestId('model-pill')).toHaveText('Replaying a cassette')
  const answer = await send(page, question)
  await expect(answer).toContainText('test response')
  const replayed = await waitForRun(page)
  expect(replayed.rounds.map((round) => round.toolCalls)).toEqual(original.rounds.map((round) => round.toolCalls))
  expect(replayed.finalText).toBe(original.finalText)

  await openDemo(page)
  await installReplayedModel(page, cassette)
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('What is the capital of France?')
  await demo(page).getByRole('button', { name: 'Send' }).click()
  const error = page.getByTestId('chat-error')
  await expect(error).toContainText('Model call #1 sent a different prompt than the recording')
  await expect(error).toContainText('- 2. user: What is the capital of the UK?')
  await expect(error).toContainText('+ 2. user: What is the capital of France?')
})

test('a test can script the model and assert on the run, not the DOM', async ({ page }) => {
  await openDemo(page)
  await installScriptedModel(page, [
    { text: 'Let me compute.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] },
    'It is 42.',
  ])
  await send(page, 'Anything at all')
  const run = await waitForRun(page)
  expect(run.status).toBe('ok')
  expect(run.rounds).toHaveLength(2)
  expect(run.rounds[0]!.toolCalls).toEqual([
    expect.objectContaining({
      name: 'calculate',
      arguments: { expression: '6 * 7' },
      result: '{"expression":"6 * 7","result":42}',
    }),
  ])
  expect(run.finalText).toBe('It is 42.')
})
