import { expect, test } from '@playwright/test'

// The Next.js app built from the packed tarball (build.mjs), served by `next start`: server
// rendering, hydration, the key-holding route and the chain in the page.

const KEY = 'sk-consumer-next-test-key'

test('renders on the server without the devtools, hydrates without a warning, and runs a tool round with an approval', async ({
  page,
  request,
}) => {
  const html = await (await request.get('/')).text()
  expect(html).toContain('Weather assistant')
  expect(html).not.toContain('data-advisor-chain-devtools-host')

  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))
  page.on('console', (message) => {
    const text = message.text()
    // A failed request is reported with its URL by the response listener.
    if ((message.type() === 'error' && !text.startsWith('Failed to load resource')) || /hydrat/i.test(text))
      problems.push(text)
  })
  const bodies: string[] = []
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`)
    if (response.url().includes('/api/openai/')) void response.text().then((text) => bodies.push(text))
  })
  await page.goto('/')
  await page.getByRole('button', { name: 'Send' }).click()
  const card = page.getByTestId('tool-card')
  await expect(card).toHaveAttribute('data-state', 'awaiting-approval')
  await expect(card).toContainText('get_weather({"city":"Paris"})')
  await page.getByRole('button', { name: 'Approve' }).click()
  await expect(card).toHaveAttribute('data-state', 'done')
  await expect(card).toContainText('"forecast":"sunny"')
  await expect(page.getByTestId('message-assistant')).toContainText('It is sunny in Paris, 21 °C.')
  await expect(page.getByTestId('status')).toHaveText('idle')

  await page.getByRole('button', { name: 'Open advisor-chain devtools' }).click()
  await expect(page.getByTestId('run-row')).toHaveCount(1)
  await page.getByTestId('run-row').click()
  await expect(page.getByTestId('timeline-tool')).toContainText('get_weather')

  // A reload restores the conversation from IndexedDB, its tool card included (memory at its default place).
  await page.reload()
  await expect(page.getByTestId('message-assistant')).toContainText('It is sunny in Paris, 21 °C.')
  await expect(card).toHaveAttribute('data-state', 'done')
  await expect(card).toContainText('"forecast":"sunny"')

  expect(bodies.length).toBeGreaterThanOrEqual(2)
  for (const body of bodies) expect(body).not.toContain(KEY)
  expect(problems).toEqual([])
})

test('the route serves embeddings without the key, for the embedding model it allows', async ({ request }) => {
  const embedded = await request.post('/api/openai/embeddings', {
    data: { model: 'mock-embedding', input: ['sunny', 'rain'], encoding_format: 'float' },
  })
  expect(embedded.status()).toBe(200)
  const text = await embedded.text()
  expect(text).not.toContain(KEY)
  expect(JSON.parse(text)).toMatchObject({
    data: [
      { index: 0, embedding: [5, 1] },
      { index: 1, embedding: [4, 1] },
    ],
  })
  const other = await request.post('/api/openai/embeddings', {
    data: { model: 'text-embedding-3-large', input: ['a'] },
  })
  expect(other.status()).toBe(403)
})

test('the route refuses a model it does not serve, a tool it does not allow and several choices, and the chain runs in a route handler too', async ({
  request,
}) => {
  const refused = await request.post('/api/openai/chat/completions', {
    data: { model: 'gpt-5-expensive', messages: [{ role: 'user', content: 'hi' }] },
  })
  expect(refused.status()).toBe(403)
  expect(await refused.text()).not.toContain(KEY)
  const other = await request.post('/api/openai/files', { data: { model: 'mock-model' } })
  expect(other.status()).toBe(404)
  const tool = { type: 'function', function: { name: 'run_shell', parameters: { type: 'object' } } }
  const shell = await request.post('/api/openai/chat/completions', {
    data: { model: 'mock-model', messages: [{ role: 'user', content: 'hi' }], tools: [tool] },
  })
  expect(shell.status()).toBe(403)
  expect(await shell.json()).toMatchObject({
    error: { message: 'The tool "run_shell" is not one this model proxy allows.' },
  })
  const many = await request.post('/api/openai/chat/completions', {
    data: { model: 'mock-model', messages: [{ role: 'user', content: 'hi' }], n: 50 },
  })
  expect(many.status()).toBe(400)

  const server = await request.get('/api/run-on-server')
  expect(await server.json()).toMatchObject({ answer: 'The sum is 5.' })
})
