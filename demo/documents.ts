import { HashingEmbeddingModel, IndexedDBVectorStore, type Document } from 'advisor-chain/retrieval'

// The demo's documents: passages of the files dropped on the page, in IndexedDB. The offline demo
// embeds them with HashingEmbeddingModel, a test double (word hashing, no model): an app would use
// OpenAIEmbeddingModel or WebLLMEmbeddingModel here.

export const documentStore = new IndexedDBVectorStore(new HashingEmbeddingModel(), { name: 'advisor-chain-demo' })

export interface DroppedFile {
  name: string
  passages: number
}

const FILES_KEY = 'advisor-chain-demo-documents'
const PASSAGE_LENGTH = 600

export function readFiles(): DroppedFile[] {
  try {
    const files = JSON.parse(localStorage.getItem(FILES_KEY) ?? '[]') as unknown
    return Array.isArray(files) ? (files as DroppedFile[]) : []
  } catch {
    return []
  }
}

function writeFiles(files: DroppedFile[]): void {
  localStorage.setItem(FILES_KEY, JSON.stringify(files))
}

/** A file's text cut into passages at blank lines, each at most about PASSAGE_LENGTH characters. */
export function passagesOf(name: string, text: string): Document[] {
  const passages: string[] = []
  let current = ''
  for (const paragraph of text.split(/\n\s*\n/).map((part) => part.trim())) {
    if (!paragraph) continue
    if (current && current.length + paragraph.length > PASSAGE_LENGTH) {
      passages.push(current)
      current = ''
    }
    current = current ? `${current}\n\n${paragraph}` : paragraph
    while (current.length > PASSAGE_LENGTH * 2) {
      passages.push(current.slice(0, PASSAGE_LENGTH))
      current = current.slice(PASSAGE_LENGTH)
    }
  }
  if (current) passages.push(current)
  return passages.map((passage, index) => ({ id: `${name}#${index + 1}`, text: passage, metadata: { file: name } }))
}

/** Adds a file's passages (replacing an earlier file of that name) and lists it. */
export async function addFile(name: string, text: string): Promise<DroppedFile[]> {
  const passages = passagesOf(name, text)
  if (passages.length === 0) throw new Error(`${name} has no text`)
  const earlier = readFiles().find((file) => file.name === name)
  await documentStore.add(passages)
  if (earlier && earlier.passages > passages.length)
    await documentStore.delete(
      Array.from({ length: earlier.passages - passages.length }, (_, i) => `${name}#${passages.length + i + 1}`),
    )
  const files = [...readFiles().filter((file) => file.name !== name), { name, passages: passages.length }]
  writeFiles(files)
  return files
}

export async function removeAll(): Promise<void> {
  await documentStore.destroy()
  writeFiles([])
}
