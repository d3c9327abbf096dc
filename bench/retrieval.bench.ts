// Retrieval in the page, Chromium only (bench/run.mjs: IndexedDB).
// 1. Search: 100,000 vectors of 384 dimensions in an InMemoryVectorStore (the index both stores
//    search with), ms per query for topK 4, against a hand-written loop over one Float32Array
//    holding the same vectors (norms precomputed, the best four kept in a small array): the ratio
//    is store / hand-written, in the same run.
// 2. Adding 10,000 documents (about 200 characters each) to an IndexedDBVectorStore in batches of
//    250, embedded by HashingEmbeddingModel (384 dimensions) in the page: the longest time the main
//    thread was blocked (a MessageChannel heartbeat's longest gap, and the longest 'longtask'
//    entry), and documents per second.
import { HashingEmbeddingModel, IndexedDBVectorStore, InMemoryVectorStore, type EmbeddingModel } from '../src/retrieval'
import { median, report, round } from './measure'

const COUNT = 100_000
const DIMENSIONS = 384
const TOP_K = 4
const QUERIES = 30
const ADDED = 10_000
const BATCH = 250

let seed = 42
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5

const matrix = new Float32Array(COUNT * DIMENSIONS)
for (let i = 0; i < matrix.length; i++) matrix[i] = random()
const queries = Array.from({ length: QUERIES }, () => Float32Array.from({ length: DIMENSIONS }, random))

/** The vectors above, by the document's text (its row number). */
const rows: EmbeddingModel = {
  embed: async (texts) => texts.map((text) => matrix.slice(Number(text) * DIMENSIONS, (Number(text) + 1) * DIMENSIONS)),
}

async function searchFigures() {
  const store = new InMemoryVectorStore(rows)
  for (let start = 0; start < COUNT; start += 10_000)
    await store.add(Array.from({ length: 10_000 }, (_, i) => ({ id: `d${start + i}`, text: String(start + i) })))

  const inverseNorms = new Float32Array(COUNT)
  for (let row = 0; row < COUNT; row++) {
    let sum = 0
    for (let i = 0; i < DIMENSIONS; i++) sum += matrix[row * DIMENSIONS + i]! ** 2
    inverseNorms[row] = 1 / Math.sqrt(sum)
  }
  const handWritten = (query: Float32Array): number[] => {
    let queryNorm = 0
    for (let i = 0; i < DIMENSIONS; i++) queryNorm += query[i]! * query[i]!
    const inverseQuery = 1 / Math.sqrt(queryNorm)
    const best: Array<{ row: number; score: number }> = []
    for (let row = 0; row < COUNT; row++) {
      let dot = 0
      const offset = row * DIMENSIONS
      for (let i = 0; i < DIMENSIONS; i++) dot += matrix[offset + i]! * query[i]!
      const score = dot * inverseNorms[row]! * inverseQuery
      if (best.length === TOP_K && score <= best[TOP_K - 1]!.score) continue
      best.push({ row, score })
      best.sort((a, b) => b.score - a.score)
      if (best.length > TOP_K) best.pop()
    }
    return best.map((entry) => entry.row)
  }

  // Both must find the same documents, or the comparison means nothing.
  for (const query of queries.slice(0, 3)) {
    const expected = handWritten(query).map((row) => `d${row}`)
    const found = (await store.search({ vector: query, topK: TOP_K })).map((document) => document.id)
    if (expected.join() !== found.join()) throw new Error(`different results: ${expected.join()} vs ${found.join()}`)
  }
  const storeMs: number[] = []
  const handMs: number[] = []
  for (let repeat = 0; repeat < 3; repeat++) {
    for (const query of queries) {
      let start = performance.now()
      await store.search({ vector: query, topK: TOP_K })
      storeMs.push(performance.now() - start)
      start = performance.now()
      handWritten(query)
      handMs.push(performance.now() - start)
    }
  }
  const storeMedian = median(storeMs)
  const handMedian = median(handMs)
  return {
    storeMsPerQuery: round(storeMedian, 2),
    handWrittenMsPerQuery: round(handMedian, 2),
    ratioToHandWritten: round(storeMedian / handMedian, 2),
  }
}

async function addFigures() {
  const store = new IndexedDBVectorStore(new HashingEmbeddingModel({ dimensions: DIMENSIONS }), {
    name: `bench-${Date.now()}`,
  })
  const words = ['shop', 'hours', 'delivery', 'returns', 'receipt', 'garden', 'lantern', 'river', 'paper', 'ink']
  const text = (i: number) =>
    Array.from({ length: 30 }, (_, w) => words[(i * 7 + w * 3) % words.length]).join(' ') + ` passage ${i}`

  // The search above ran as one long task; let it end (and be reported) before watching.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const longTasks: number[] = []
  const observer = new PerformanceObserver((list) =>
    list.getEntries().forEach((entry) => longTasks.push(entry.duration)),
  )
  observer.observe({ type: 'longtask', buffered: false })
  let longestGap = 0
  let beating = true
  const channel = new MessageChannel()
  let last = performance.now()
  channel.port1.onmessage = () => {
    const now = performance.now()
    longestGap = Math.max(longestGap, now - last)
    last = now
    if (beating) channel.port2.postMessage(0)
  }
  channel.port2.postMessage(0)

  const start = performance.now()
  for (let batch = 0; batch < ADDED; batch += BATCH)
    await store.add(
      Array.from({ length: BATCH }, (_, i) => ({ id: `p${batch + i}`, text: text(batch + i), metadata: { batch } })),
    )
  const elapsed = performance.now() - start
  beating = false
  await new Promise((resolve) => setTimeout(resolve, 100))
  observer.disconnect()
  const found = await store.search({ text: text(1234), topK: 1 })
  if (found[0]?.id !== 'p1234') throw new Error(`the added documents are not searchable: ${found[0]?.id}`)
  await store.destroy()
  return {
    documents: ADDED,
    batch: BATCH,
    totalMs: Math.round(elapsed),
    documentsPerSecond: Math.round((ADDED / elapsed) * 1000),
    longestMainThreadBlockMs: round(longestGap, 1),
    longTasksOver50Ms: longTasks.length,
    longestLongTaskMs: round(Math.max(0, ...longTasks), 1),
  }
}

report('retrieval', {
  what: `search over ${COUNT.toLocaleString('en')} vectors of ${DIMENSIONS} dimensions, topK ${TOP_K}, median ms per query over ${QUERIES * 3} queries, InMemoryVectorStore vs a hand-written loop over one Float32Array; adding ${ADDED.toLocaleString('en')} documents to IndexedDBVectorStore in batches of ${BATCH} (HashingEmbeddingModel in the page), the longest main-thread block`,
  search: await searchFigures(),
  addToIndexedDB: await addFigures(),
})
