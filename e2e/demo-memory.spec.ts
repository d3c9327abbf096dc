import { expect, test, type Page } from '@playwright/test'
import type { TraceEventOf } from 'advisor-chain'
import { readTrace, waitForRun } from 'advisor-chain/playwright'
import { demo, devtools, idle, openDemo, send } from './support'

async function chooseMemory(page: Page, where: RegExp) {
  await demo(page).getByRole('tab', { name: 'Advisors' }).click()
  await demo(page).getByRole('radio', { name: where }).check()
}

async function firstRequestOf(page: Page, runId: string) {
  const events = await readTrace(page)
  return events.find(
    (event): event is TraceEventOf<'model-request'> => event.type === 'model-request' && event.runId === runId,
  )!
}

async function startDelete(page: Page) {
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Delete note 1')
  await demo(page).getByRole('button', { name: 'Send' }).click()
  await expect(page.getByTestId('approval-prompt')).toContainText('delete_note')
}

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

test('a conversation survives a reload and the model is given it again', async ({ page }) => {
  await send(page, 'Note: buy milk')
  await waitForRun(page)
  await page.reload()
  await expect(page.getByTestId('message-user')).toHaveText(['Note: buy milk'])
  await expect(page.getByTestId('message-assistant')).toContainText(['I saved the note "buy milk".'])
  await expect(demo(page).getByRole('navigation', { name: 'Conversations' })).toContainText('Note: buy milk')

  await send(page, 'What time is it?')
  const run = await waitForRun(page)
  const request = await firstRequestOf(page, run.runId)
  expect(request.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user'])
  expect(request.messages[1]).toMatchObject({ role: 'user', text: 'Note: buy milk' })
})

test('memory inside the loop keeps the whole transcript, tool calls and results included', async ({ page }) => {
  await chooseMemory(page, /the whole transcript/)
  await send(page, 'Note: buy milk')
  await waitForRun(page)
  await send(page, 'What time is it?')
  const run = await waitForRun(page)
  const request = await firstRequestOf(page, run.runId)
  expect(request.messages.map((message) => message.role)).toEqual([
    'system',
    'user',
    'assistant',
    'tool',
    'assistant',
    'user',
  ])
  await page.reload()
  await expect(page.getByTestId('message-assistant').first().getByTestId('tool-call')).toContainText('add_note')
})

test('a tool call waits for approval, and a denial reaches the model as what the user said', async ({ page }) => {
  await send(page, 'Note: keep me')
  await waitForRun(page)
  await startDelete(page)
  await expect(devtools(page).getByTestId('pending-approval')).toContainText('delete_note')
  await page
    .getByTestId('approval-prompt')
    .getByLabel(/Reason/)
    .fill('I still need it')
  await page.getByTestId('approval-prompt').getByRole('button', { name: 'Deny' }).click()
  await idle(page)
  const run = await waitForRun(page)
  expect(run.rounds[0]!.toolCalls[0]).toMatchObject({ name: 'delete_note' })
  expect(run.rounds[0]!.toolCalls[0]!.result).toContain('I still need it')
  await demo(page).getByRole('tab', { name: 'Tools' }).click()
  await expect(page.getByTestId('notes')).toContainText('keep me')
})

test('while a tool waits for approval, Send waits too and says why; the message typed meanwhile goes after', async ({
  page,
}) => {
  await send(page, 'Note: keep me')
  await waitForRun(page)
  await startDelete(page)
  const message = demo(page).getByRole('textbox', { name: 'Message', exact: true })
  const sendButton = demo(page).getByRole('button', { name: 'Send' })
  await message.fill('What time is it?')
  await expect(sendButton).toBeDisabled()
  await expect(sendButton).toHaveAccessibleDescription(/Answer the tool's approval first/)
  await expect(demo(page).getByTestId('send-waits')).toBeVisible()
  // Enter in the message does not send either: the turn that waits is not stopped.
  await message.press('Enter')
  await expect(page.getByTestId('approval-prompt')).toContainText('delete_note')
  await page.getByTestId('approval-prompt').getByRole('button', { name: 'Allow' }).click()
  const deleted = await waitForRun(page)
  expect(deleted.status).toBe('ok')
  expect(deleted.rounds[0]!.toolCalls[0]).toMatchObject({ name: 'delete_note' })
  await expect(demo(page).getByTestId('send-waits')).toHaveCount(0)
  await expect(message).toHaveValue('What time is it?')
  await sendButton.click()
  await expect(page.getByTestId('message-user')).toHaveText(['Note: keep me', 'Delete note 1', 'What time is it?'])
})

test('a pending approval survives a reload with memory inside the loop, without duplicates', async ({ page }) => {
  await chooseMemory(page, /the whole transcript/)
  await send(page, 'Note: old list')
  await waitForRun(page)
  await startDelete(page)
  await page.reload()

  await expect(page.getByRole('status').filter({ hasText: 'waiting for its tools' })).toBeVisible()
  await page.getByRole('button', { name: 'Continue it' }).click()
  await expect(page.getByTestId('approval-prompt')).toContainText('delete_note')
  await page.getByTestId('approval-prompt').getByRole('button', { name: 'Allow' }).click()
  await idle(page)
  await expect(page.getByTestId('message-assistant').last()).toContainText('Deleted note 1')
  await demo(page).getByRole('tab', { name: 'Tools' }).click()
  await expect(demo(page).getByText('None yet.')).toBeVisible()

  await page.reload()
  await expect(page.getByTestId('message-user')).toHaveText(['Note: old list', 'Delete note 1'])
  await expect(page.getByTestId('message-assistant')).toHaveCount(2)
  await expect(page.getByRole('status').filter({ hasText: 'waiting for its tools' })).toHaveCount(0)
})

/** What the chat shows of each answer: its texts and its tool cards with their states and marks. */
async function answersShown(page: Page): Promise<string[]> {
  return page
    .getByTestId('message-assistant')
    .evaluateAll((bubbles) => bubbles.map((bubble) => (bubble as HTMLElement).innerText.replace(/\s+/g, ' ').trim()))
}

for (const memory of [
  { where: 'outside the loop (the default)', choose: undefined },
  { where: 'inside the loop', choose: /the whole transcript/ },
]) {
  test(`after a reload the chat shows what it showed, cards, texts and approval marks included: memory ${memory.where}`, async ({
    page,
  }) => {
    if (memory.choose) await chooseMemory(page, memory.choose)
    await send(page, 'Note: buy milk')
    await waitForRun(page)
    await startDelete(page)
    await page.getByTestId('approval-prompt').getByRole('button', { name: 'Deny' }).click()
    await idle(page)
    await startDelete(page)
    await page.getByTestId('approval-prompt').getByRole('button', { name: 'Allow' }).click()
    await idle(page)
    const before = await answersShown(page)
    expect(before.join(' | ')).toMatch(/declined/)
    expect(before.join(' | ')).toMatch(/approved/)
    await expect(page.getByTestId('tool-call')).toHaveCount(3)

    await page.reload()
    await expect(page.getByTestId('message-assistant')).toHaveCount(before.length)
    expect(await answersShown(page)).toEqual(before)
    await expect(page.getByTestId('tool-call')).toHaveCount(3)
  })
}

test('a reload while a call waits for approval keeps the text of that round and its card (memory inside the loop)', async ({
  page,
}) => {
  await chooseMemory(page, /the whole transcript/)
  await send(page, 'Note: old list')
  await waitForRun(page)
  await startDelete(page)
  const card = page.getByTestId('message-assistant').last()
  const shown = (await card.innerText()).replace(/\s+/g, ' ').trim()
  await page.reload()
  const restored = page.getByTestId('message-assistant').last()
  await expect(restored.getByTestId('tool-call')).toHaveAttribute('data-state', 'pending')
  await expect(restored.getByTestId('tool-call')).toContainText('delete_note')
  // The same text before the card; the card says it has not run yet instead of waiting for you.
  expect((await restored.innerText()).replace(/\s+/g, ' ').trim()).toBe(shown.replace('waiting for you', 'not run yet'))
})
