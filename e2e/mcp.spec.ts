import { expect, test } from '@playwright/test'
import { installScriptedModel, readTrace, waitForRun } from 'advisor-chain/playwright'
import { startEverythingServer, type RunningServer } from '../src/mcp/testing/servers'
import { demo, devtools, openDemo, send } from './support'

// The demo adds the protocol's reference MCP server by URL, under the strict CSP a careful app
// would set; a scripted model calls one of its tools, and the devtools show the MCP exchange.

let server: RunningServer

test.beforeAll(async () => {
  server = await startEverythingServer()
})

test.afterAll(async () => {
  await server.stop()
})

test("under script-src 'self', the demo adds an MCP server by URL, lists its tools and the model calls one", async ({
  page,
}) => {
  // A page fulfilled by the route below has no address, so Chromium's Local Network Access takes it
  // for a public page asking for a loopback server: the user's permission, granted here.
  await page.context().grantPermissions(['local-network-access'])
  await page.route(
    (url) => url.pathname === '/' || url.pathname.endsWith('.html'),
    async (route) => {
      const response = await route.fetch()
      await route.fulfill({
        response,
        headers: { ...response.headers(), 'content-security-policy': "script-src 'self'; worker-src 'self' blob:" },
      })
    },
  )
  await openDemo(page)
  await demo(page).getByRole('tab', { name: 'Tools' }).click()
  await demo(page).getByLabel('Server URL').fill(`${server.origin}/mcp`)
  await demo(page)
    .getByLabel(/Bearer token/)
    .fill('tok-e2e-5d1f0a9c')
  await demo(page).getByRole('button', { name: 'Add server' }).click()
  const listed = demo(page).getByTestId('mcp-server')
  await expect(listed).toContainText('mcp-servers/everything 2.0.0')
  await expect(listed.getByTestId('mcp-tool').filter({ hasText: 'get-sum' })).toHaveCount(1)

  await installScriptedModel(page, [
    { text: 'Adding up.', toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 3 } }] },
    'It is 5.',
  ])
  await send(page, 'What is 2 + 3?')
  const run = await waitForRun(page)
  expect(run.status).toBe('ok')
  expect(run.rounds[0]!.toolCalls).toEqual([
    expect.objectContaining({ name: 'get-sum', arguments: { a: 2, b: 3 }, result: 'The sum of 2 and 3 is 5.' }),
  ])

  const panel = devtools(page)
  await panel.getByTestId('timeline-tool').first().click()
  await expect(panel.getByTestId('tool-source')).toContainText(`mcp-servers/everything 2.0.0 · ${server.origin}/mcp`)
  await expect(panel.getByTestId('tool-detail-request')).toContainText('"method": "tools/call"')
  await expect(panel.getByTestId('tool-detail-response')).toContainText('The sum of 2 and 3 is 5.')
  expect(JSON.stringify(await readTrace(page))).not.toContain('tok-e2e-5d1f0a9c')
})

test('a URL that is not an MCP server gives a readable error in the demo', async ({ page }) => {
  await openDemo(page)
  await demo(page).getByRole('tab', { name: 'Tools' }).click()
  await demo(page)
    .getByLabel('Server URL')
    .fill(`${new URL(page.url()).origin}/`)
  await demo(page).getByRole('button', { name: 'Add server' }).click()
  await expect(demo(page).getByTestId('mcp-error')).toContainText(
    `Could not connect to an MCP server at ${new URL(page.url()).host}`,
  )
})
