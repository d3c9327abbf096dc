import { createRequire } from 'node:module'
import { expect, test, type Page } from '@playwright/test'
import type { TraceEventOf } from 'advisor-chain'
import { readTrace, waitForRun } from 'advisor-chain/playwright'
import { demo, devtools, openDemo, send } from './support'

const HOURS = `# Opening hours

The Lantern bookshop opens at nine in the morning and closes at six in the evening.

On Sundays the bookshop stays closed.`

const RETURNS = `Returns are accepted within thirty days with the receipt.

Gift cards cannot be returned.`

/** WCAG A/AA violations on the page, as axe-core reports them (as e2e/accessibility.spec.ts checks the rest). */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') })
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }>
        }
      }
    ).axe
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    })
    return result.violations.map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes)}`)
  })
}

test.beforeEach(async ({ page }) => {
  await openDemo(page)
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const request = indexedDB.deleteDatabase('advisor-chain-vectors:advisor-chain-demo')
        request.onsuccess = request.onerror = request.onblocked = () => resolve()
      }),
  )
})

test('drop files, ask about them, see the retrieved passages in the devtools', async ({ page }) => {
  await demo(page).getByRole('tab', { name: 'Documents' }).click()
  await demo(page)
    .getByLabel('Add documents')
    .setInputFiles([
      { name: 'hours.md', mimeType: 'text/markdown', buffer: Buffer.from(HOURS) },
      { name: 'returns.txt', mimeType: 'text/plain', buffer: Buffer.from(RETURNS) },
    ])
  await expect(page.getByTestId('documents')).toContainText('hours.md')
  await expect(page.getByTestId('documents')).toContainText('returns.txt')

  const answer = await send(page, 'When does the bookshop open in the morning?')
  await expect(answer).toContainText('From your documents: “# Opening hours')
  await expect(answer).toContainText('opens at nine')

  const run = await waitForRun(page)
  const events = await readTrace(page)
  const retrieval = events.find(
    (event): event is TraceEventOf<'retrieval'> => event.type === 'retrieval' && event.runId === run.runId,
  )!
  expect(retrieval).toMatchObject({ round: 1, query: 'When does the bookshop open in the morning?', topK: 3 })
  expect(retrieval.documents[0]!.id).toBe('hours.md#1')
  expect(retrieval.documents[0]!.metadata).toEqual({ file: 'hours.md' })
  const request = events.find(
    (event): event is TraceEventOf<'model-request'> => event.type === 'model-request' && event.runId === run.runId,
  )!
  expect(request.messages.at(-1)).toMatchObject({
    role: 'user',
    text: expect.stringContaining('Context information is below'),
  })

  const panel = devtools(page)
  await panel.getByText('DOCS').first().click()
  const documents = panel.getByTestId('retrieved-document')
  await expect(documents.first()).toContainText('hours.md#1')
  await expect(documents.first()).toContainText('opens at nine')
  await expect(panel.getByTestId('inspector')).toContainText('When does the bookshop open in the morning?')
  // The Documents tab and the retrieval's inspector, as a screen reader or keyboard user meets them.
  expect(await violations(page)).toEqual([])
})

test('the documents survive a reload', async ({ page }) => {
  await demo(page).getByRole('tab', { name: 'Documents' }).click()
  await demo(page)
    .getByLabel('Add documents')
    .setInputFiles([{ name: 'returns.txt', mimeType: 'text/plain', buffer: Buffer.from(RETURNS) }])
  await expect(page.getByTestId('documents')).toContainText('returns.txt')
  await page.reload()
  await expect(page.getByTestId('model-pill')).not.toHaveText('Choose a model')

  const answer = await send(page, 'Can gift cards be returned?')
  await expect(answer).toContainText('From your documents: “Returns are accepted within thirty days')
})
