import { expect, test, type Page } from '@playwright/test'
import { demo, devtools, idle, openDemo, recorded, replayServer, useOpenAICompatible } from './support'

// Messages as ordered parts in the demo: an image attached to a message, and an answer whose text
// and tool cards are drawn in the order they happened.

// The smallest PNG: one transparent pixel.
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
)

async function attachAndSend(page: Page, text: string): Promise<void> {
  await demo(page)
    .getByTestId('attach-input')
    .setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PIXEL })
  await expect(demo(page).getByTestId('attachment-chip')).toHaveText(/pixel\.png/)
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill(text)
  await demo(page).getByRole('button', { name: 'Send' }).click()
}

test.beforeEach(async ({ page }) => {
  await openDemo(page)
})

test('an attached image goes with the message, and the answer interleaves text and tool cards', async ({
  page,
}, testInfo) => {
  await attachAndSend(page, 'What is in this picture?')
  const question = page.getByTestId('message-user').last()
  const image = question.getByTestId('message-image')
  await expect(image).toHaveAttribute('alt', 'pixel.png')
  expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1)
  await expect(demo(page).getByTestId('attachment-chip')).toHaveCount(0)

  await idle(page)
  const answer = page.getByTestId('message-assistant').last()
  await expect(answer).toContainText('I saved the note "image: pixel.png"')
  // Text, then the card where the model called the tool, then the text of the next round.
  const order = await answer.evaluate((bubble) =>
    [...bubble.children].map((child) => (child as HTMLElement).dataset['testid'] ?? child.className),
  )
  expect(order).toEqual(['text', 'tool-call', 'text'])
  await expect(answer.getByTestId('tool-call')).toHaveAttribute('data-state', 'done')

  // The devtools show the image in the prompt the model received.
  const panel = devtools(page)
  await panel.getByTestId('timeline-round').first().click()
  await panel.getByRole('tab', { name: 'Prompt' }).click()
  const thumbnail = panel.getByTestId('inspector').getByTestId('prompt-image')
  await expect(thumbnail).toContainText('pixel.png · image/png · 68 B')
  await expect(thumbnail.locator('img')).toHaveAttribute('src', /^blob:/)
  await page.screenshot({ path: testInfo.outputPath('parts.png'), fullPage: true })
})

test('an OpenAI-compatible server receives the image as an image_url part', async ({ page }) => {
  const server = await replayServer({ body: recorded('openrouter/chat-stream-usage.sse') })
  try {
    await useOpenAICompatible(page, server.baseURL)
    await attachAndSend(page, 'Describe it')
    await idle(page)
    const sent = server.requests[0]!.body.messages.at(-1)
    expect(sent).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Describe it' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL.toString('base64')}` } },
      ],
    })
  } finally {
    await server.close()
  }
})

test('an image type the provider does not take fails before anything is sent', async ({ page }) => {
  const server = await replayServer({ body: recorded('openrouter/chat-stream-usage.sse') })
  try {
    await useOpenAICompatible(page, server.baseURL)
    await demo(page)
      .getByTestId('attach-input')
      .setInputFiles({ name: 'scan.bmp', mimeType: 'image/bmp', buffer: Buffer.from('BM') })
    await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill('Read this scan')
    await demo(page).getByRole('button', { name: 'Send' }).click()
    await expect(page.getByTestId('chat-error')).toContainText(
      "model 'gpt-4o-mini' cannot take the image 'scan.bmp' (message 2, part 2): image/bmp is not an image type it takes",
    )
    expect(server.requests).toHaveLength(0)
  } finally {
    await server.close()
  }
})
