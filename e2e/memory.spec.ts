import { expect, test, type Page } from '@playwright/test'

// Served by the Vite dev server, one port above the demo's (see playwright.config.ts): the page
// imports the library's source.
const PAGE = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4179) + 1}/e2e/pages/memory.html`

async function openMemoryPage(page: Page): Promise<void> {
  await page.goto(PAGE)
  await expect(page.locator('#status')).toHaveText('ready')
}

async function send(page: Page, text: string): Promise<void> {
  const before = await page.locator('#transcript li').count()
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(page.locator('#transcript li')).toHaveCount(before + 2)
}

test('a conversation survives a page reload and is replayed to the model', async ({ page }) => {
  await openMemoryPage(page)
  await send(page, 'Hello')
  await page.reload()
  await expect(page.locator('#status')).toHaveText('ready')
  await expect(page.locator('#transcript li')).toHaveText(['Hello', 'I remember 0 earlier message(s).'])

  await send(page, 'Still there?')
  await expect(page.locator('#transcript li').last()).toHaveText('I remember 2 earlier message(s).')
})

test('two tabs adding to one conversation at once lose nothing', async ({ context }) => {
  const [tabA, tabB] = [await context.newPage(), await context.newPage()]
  await openMemoryPage(tabA)
  await openMemoryPage(tabB)
  const write = (tab: Page, prefix: string) =>
    tab.evaluate(
      (prefix) => Promise.all(Array.from({ length: 30 }, (_, i) => window.memoryPage.add('shared', [`${prefix}${i}`]))),
      prefix,
    )
  await Promise.all([write(tabA, 'a'), write(tabB, 'b')])
  const texts = await tabA.evaluate(async () =>
    (await window.memoryPage.read('shared')).map((message) => (message.role === 'user' ? message.text : '')),
  )
  expect(texts).toHaveLength(60)
  expect(new Set(texts).size).toBe(60)
})

test('a save cut off by closing the page leaves the old or the new conversation, never a part', async ({ context }) => {
  const writer = await context.newPage()
  await openMemoryPage(writer)
  await writer.evaluate(() => window.memoryPage.add('big', ['before the save']))
  await writer.evaluate(() => window.memoryPage.startBigSave('big', 5000))
  await writer.waitForFunction(() => window.memoryPage.saveStarted)
  await writer.close()

  const reader = await context.newPage()
  await openMemoryPage(reader)
  const stored = await reader.evaluate(async () => (await window.memoryPage.read('big')).length)
  test.info().annotations.push({ type: 'outcome', description: stored === 1 ? 'rolled back' : 'committed' })
  expect([1, 5000]).toContain(stored)
})

// Whole turns, from several pages of one origin: e2e/pages/memory-turns.ts.
const TURNS_PAGE = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4179) + 1}/e2e/pages/memory-turns.html`
type Placement = 'inside' | 'outside'
type StoredMessage = {
  role: string
  text?: string
  toolCalls?: { id: string }[]
  responses?: { id: string; responseData: string }[]
}

async function openTurnsPage(page: Page): Promise<void> {
  await page.goto(TURNS_PAGE)
  await expect(page.locator('#status')).toHaveText('ready')
}

const read = (page: Page, id: string) =>
  page.evaluate((id) => window.memoryTurns.read(id), id) as Promise<StoredMessage[]>
const turnIn = (page: Page, id: string, text: string, placement: Placement) =>
  page.evaluate(([id, text, placement]) => window.memoryTurns.turn(id, text, placement), [id, text, placement] as const)
const turnSize = (placement: Placement) => (placement === 'inside' ? 4 : 2)
let conversations = 0
const conversation = (what: string) => `${what}-${Date.now()}-${conversations++}`

/** The turns stand whole and in order: a question, (its tool call and result,) its answer. */
function expectWholeTurns(messages: StoredMessage[], placement: Placement): void {
  const size = turnSize(placement)
  expect(messages.length % size).toBe(0)
  for (let i = 0; i < messages.length; i += size) {
    const question = messages[i]!.text!
    const turn = messages.slice(i, i + size)
    expect(turn).toMatchObject(
      placement === 'inside'
        ? [
            { role: 'user' },
            { role: 'assistant', toolCalls: [{ id: `call-${question}` }] },
            { role: 'tool', responses: [{ id: `call-${question}`, responseData: `found ${question}` }] },
            { role: 'assistant', text: `Answer ${question}` },
          ]
        : [{ role: 'user' }, { role: 'assistant', text: `Answer ${question}` }],
    )
  }
}

function hasOrphans(messages: StoredMessage[]): boolean {
  return messages.some(
    (message, i) =>
      (message.toolCalls?.length && messages[i + 1]?.role !== 'tool') ||
      (message.role === 'tool' && !messages[i - 1]?.toolCalls?.length),
  )
}

/** Every tool call is answered right after it, and every tool response answers the call before it. */
function expectWellFormed(messages: StoredMessage[]): void {
  messages.forEach((message, i) => {
    if (message.role === 'tool')
      expect(messages[i - 1]?.toolCalls?.map((c) => c.id)).toEqual(message.responses!.map((r) => r.id))
    if (message.toolCalls?.length) expect(messages[i + 1]?.role).toBe('tool')
  })
}

for (const placement of ['inside', 'outside'] as const) {
  test(`two pages running 25 turns each at once on one conversation store 50 whole turns, none interleaved (memory ${placement} the loop)`, async ({
    context,
  }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()]
    await openTurnsPage(tabA)
    await openTurnsPage(tabB)
    const id = conversation(`both-${placement}`)
    const run = (tab: Page, prefix: string) =>
      tab.evaluate(([id, prefix, placement]) => window.memoryTurns.turns(id, prefix, 25, placement), [
        id,
        prefix,
        placement,
      ] as const)
    const outcomes = (await Promise.all([run(tabA, 'A'), run(tabB, 'B')])).flat()
    expect(outcomes.filter((outcome) => 'error' in outcome)).toEqual([])
    const stored = await read(tabA, id)
    expect(stored).toHaveLength(50 * turnSize(placement))
    expectWholeTurns(stored, placement)
    expect(new Set(stored.filter((m) => m.role === 'user').map((m) => m.text)).size).toBe(50)
    expect([
      ...(await tabA.evaluate(() => window.memoryTurns.warnings())),
      ...(await tabB.evaluate(() => window.memoryTurns.warnings())),
    ]).toEqual([])
  })
}

test('a turn from another page waits for the turn whose tool runs, and that turn keeps its tool call and result (memory inside the loop)', async ({
  context,
}) => {
  const [tabA, tabB] = [await context.newPage(), await context.newPage()]
  await openTurnsPage(tabA)
  await openTurnsPage(tabB)
  const id = conversation('held')
  await tabA.evaluate(() => (window.memoryTurns.holdTool = true))
  const first = turnIn(tabA, id, 'held', 'inside')
  await tabA.waitForFunction(() => window.memoryTurns.toolStarted)
  const second = turnIn(tabB, id, 'other', 'inside')
  await expect
    .poll(async () => (await tabB.evaluate(() => window.memoryTurns.locks())).pending)
    .toContain(`advisor-chain indexeddb:e2e-memory-turns ${id}`)
  await tabA.evaluate(() => window.memoryTurns.releaseTool())
  expect([await first, await second]).toEqual([{ answer: 'Answer held' }, { answer: 'Answer other' }])
  const stored = await read(tabB, id)
  expectWholeTurns(stored, 'inside')
  expect(stored.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['held', 'other'])
  expect(await tabB.evaluate(() => window.memoryTurns.warnings())).toEqual([])
})

for (const placement of ['inside', 'outside'] as const) {
  for (const repair of [false, true]) {
    test(`a page closed at any save of a turn leaves the earlier history whole and the next turn a well-formed conversation (memory ${placement} the loop, ${repair ? 'with' : 'without'} a repair)`, async ({
      context,
    }) => {
      test.setTimeout(120_000)
      // Saves of the turn: the repair (an update), then the question, tool call, result and answer inside the loop, or one step outside.
      const saves = (repair ? 1 : 0) + (placement === 'inside' ? 4 : 1)
      for (let closeAt = 0; closeAt <= saves; closeAt++) {
        const id = conversation(`closed-${closeAt}`)
        const writer = await context.newPage()
        await openTurnsPage(writer)
        await writer.evaluate(
          ([id, repair]) =>
            window.memoryTurns.add(id, [
              { role: 'user', text: 'earlier' },
              ...(repair
                ? [
                    {
                      role: 'assistant' as const,
                      text: '',
                      toolCalls: [{ id: 'lost', name: 'lookup', arguments: '{}' }],
                    },
                    { role: 'tool' as const, responses: [{ id: 'lost', name: 'lookup', responseData: 'gone' }] },
                  ]
                : []),
              { role: 'assistant', text: 'Answer earlier', toolCalls: [] },
            ]),
          [id, repair] as const,
        )
        // A record damaged on disk: the tool response of the earlier turn, so its call is an orphan the load drops.
        if (repair)
          await writer.evaluate((id) => window.memoryTurns.damage(id, 2, { role: 'tool', responses: 'garbled' }), id)
        await writer.evaluate(([id, placement]) => window.memoryTurns.startTurn(id, 'cut', placement), [
          id,
          placement,
        ] as const)
        await writer.waitForFunction((closeAt) => window.memoryTurns.saves >= closeAt, closeAt)
        await writer.close()

        const reader = await context.newPage()
        await openTurnsPage(reader)
        const left = await read(reader, id)
        expect(left.slice(0, 1), `closed at save ${closeAt}`).toMatchObject([{ role: 'user', text: 'earlier' }])
        expect(
          left.some((m) => m.text === 'Answer earlier'),
          `closed at save ${closeAt}`,
        ).toBe(true)
        expect(await turnIn(reader, id, 'next', placement)).toEqual({ answer: 'Answer next' })
        const after = await read(reader, id)
        expectWellFormed(after)
        expect(after.at(-turnSize(placement))).toMatchObject({ role: 'user', text: 'next' })
        expect(after.filter((m) => m.role === 'user' && m.text === 'next')).toHaveLength(1)
        await reader.close()
      }
    })
  }
}

const QUOTA_SAVES = { inside: ['user', 'call', 'result', 'answer'], outside: ['user', 'answer'] } as const

for (const placement of ['inside', 'outside'] as const) {
  for (const save of QUOTA_SAVES[placement]) {
    test(`a full disk when the ${save} of a turn is saved is a ChatMemoryError naming quota and the conversation, and the earlier history is untouched (memory ${placement} the loop)`, async ({
      page,
    }) => {
      await openTurnsPage(page)
      // Set before the page first opens its database: Chromium caches the space an origin has left.
      const cdp = await page.context().newCDPSession(page)
      const origin = new URL(TURNS_PAGE).origin
      await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 3_000_000 })
      const id = conversation(`quota-${placement}-${save}`)
      await page.evaluate(
        (id) =>
          window.memoryTurns.add(
            id,
            Array.from({ length: 500 }, (_, i) => [
              { role: 'user' as const, text: `earlier ${i}` },
              { role: 'assistant' as const, text: `Answer earlier ${i}`, toolCalls: [] },
            ]).flat(),
          ),
        id,
      )
      const before = await read(page, id)
      try {
        const outcome = await page.evaluate(
          ([id, placement, save]) => window.memoryTurns.turn(id, 'big', placement, { [save]: 4_000_000 }),
          [id, placement, save] as const,
        )
        expect(outcome).toMatchObject({ error: 'ChatMemoryError', code: 'quota', conversationId: id })
        expect((outcome as { message: string }).message).toMatch(/storage quota of this site is used up/)
        expect((await read(page, id)).slice(0, 1000)).toEqual(before)
        // The failed turn's tool call is dropped once the turn has given the conversation back.
        await expect.poll(async () => hasOrphans(await read(page, id))).toBe(false)
        expect((await read(page, id)).slice(0, 1000)).toEqual(before)
      } finally {
        await cdp.send('Storage.overrideQuotaForOrigin', { origin })
      }
    })
  }
}
