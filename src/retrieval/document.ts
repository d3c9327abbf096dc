/** A piece of text to retrieve: a passage of a file, a note, a product description. */
export interface Document {
  id: string
  text: string
  /** Plain data to filter on and to show (the file name, a page, a date). */
  metadata?: Record<string, unknown>
}

/** A document found by a search, with its cosine similarity to the query (1 = same direction). */
export interface ScoredDocument extends Document {
  score: number
}

/**
 * Checks documents before anything is embedded or stored: a readable error names the first
 * document that is wrong (no id, no text, metadata that is not plain data, over the model's limit).
 */
export function checkDocuments(documents: readonly Document[], maxInputLength: number | undefined): void {
  if (!isArray(documents)) throw new TypeError('add() takes an array of documents: [{ id, text, metadata? }]')
  const seen = new Set<string>()
  documents.forEach((document, index) => {
    if (document === null || typeof document !== 'object')
      throw new TypeError(`Document ${index} must be an object { id, text, metadata? }`)
    const { id, text, metadata } = document
    if (typeof id !== 'string' || id.length === 0)
      throw new TypeError(`Document ${index} needs an id: a non-empty string`)
    if (seen.has(id)) throw new TypeError(`Document '${id}' appears twice in one add(); give each document its own id`)
    seen.add(id)
    if (typeof text !== 'string' || text.trim().length === 0)
      throw new TypeError(`Document '${id}' has no text: an empty document cannot be embedded or found`)
    if (maxInputLength !== undefined && text.length > maxInputLength)
      throw new RangeError(
        `Document '${id}' is ${text.length} characters long, over the embedding model's limit of ${maxInputLength}: split it into smaller documents`,
      )
    if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)))
      throw new TypeError(`The metadata of document '${id}' must be a plain object`)
  })
}

/** Whether a value a caller passed is an array at all (its declared type says so; a JavaScript caller need not). */
export function isArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value)
}
