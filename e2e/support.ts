import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { expect, type Locator, type Page } from '@playwright/test'

/** The demo page itself, without the devtools panel. */
export function demo(page: Page): Locator {
  return page.locator('#demo')
}

/** The devtools panel (its shadow root is open, so locators reach inside). */
export function devtools(page: Page): Locator {
  return page.locator('[data-advisor-chain-devtools-host]').last()
}

/** Opens the demo with a clean slate (no notes, settings, conversations from an earlier test). */
export async function openDemo(page: Page, path = '/'): Promise<void> {
  await page.goto(path)
  await page.evaluate(async () => {
    localStorage.clear()
    sessionStorage.clear()
    for (const name of ['advisor-chain-demo', 'advisor-chain-devtools:advisor-chain-demo'])
      await new Promise<void>((resolve) => {
        const request = indexedDB.deleteDatabase(name)
        request.onsuccess = request.onerror = request.onblocked = () => resolve()
      })
  })
  await page.reload()
  await expect(page.getByTestId('model-pill')).not.toHaveText('Choose a model')
}

/** How many runs the demo's devtools keep in IndexedDB for the next page load. */
export function keptRuns(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const request = indexedDB.open('advisor-chain-devtools:advisor-chain-demo')
        request.onerror = () => reject(request.error ?? new Error('could not open'))
        request.onsuccess = () => {
          const db = request.result
          if (!db.objectStoreNames.contains('sizes')) return (db.close(), resolve(0))
          const count = db.transaction('sizes').objectStore('sizes').count()
          count.onsuccess = () => (db.close(), resolve(count.result))
          count.onerror = () => reject(count.error ?? new Error('could not count'))
        }
      }),
  )
}

/** Types a message and waits until the answer is complete. */
export async function send(page: Page, text: string): Promise<Locator> {
  const answers = page.getByTestId('message-assistant')
  const before = await answers.count()
  await demo(page).getByRole('textbox', { name: 'Message', exact: true }).fill(text)
  await demo(page).getByRole('button', { name: 'Send' }).click()
  await expect(answers).toHaveCount(before + 1)
  const answer = answers.nth(before)
  return answer
}

export async function idle(page: Page): Promise<void> {
  await expect(demo(page).getByRole('button', { name: 'Send' })).toBeVisible({ timeout: 15_000 })
}

const fixtures = join(import.meta.dirname, '..', 'src', 'models', '__fixtures__', 'providers')

export function recorded(file: string): Buffer {
  return readFileSync(join(fixtures, file))
}

/**
 * An OpenAI-compatible server on the loopback interface that answers each chat request with the
 * next recorded response (bytes as recorded), with the CORS headers a browser page needs.
 */
export async function replayServer(...bodies: Array<{ status?: number; contentType?: string; body: Buffer | string }>) {
  const requests: Array<{ authorization: string | undefined; body: { messages: Array<Record<string, unknown>> } }> = []
  const server: Server = createServer((request, response) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': '*',
      'access-control-allow-methods': 'POST, OPTIONS',
    }
    if (request.method === 'OPTIONS') return void response.writeHead(204, cors).end()
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString()))
    request.on('end', () => {
      requests.push({
        authorization: request.headers.authorization,
        body: JSON.parse(text) as { messages: Array<Record<string, unknown>> },
      })
      const next = bodies[requests.length - 1] ?? bodies.at(-1)!
      response.writeHead(next.status ?? 200, { ...cors, 'content-type': next.contentType ?? 'text/event-stream' })
      response.end(next.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Points the demo at an OpenAI-compatible server through the model picker, as a user would. */
export async function useOpenAICompatible(
  page: Page,
  baseURL: string,
  model = 'gpt-4o-mini',
  apiKey = '',
): Promise<void> {
  const app = demo(page)
  await app.getByRole('tab', { name: 'Model' }).click()
  await app.getByRole('radio', { name: 'OpenAI-compatible' }).click()
  await app.getByLabel('Base URL').fill(baseURL)
  await app.getByRole('textbox', { name: 'Model', exact: true }).fill(model)
  if (apiKey) await app.getByLabel(/API key/).fill(apiKey)
  await app.getByRole('button', { name: 'Use this server' }).click()
  await expect(page.getByTestId('model-pill')).toContainText(model)
}
