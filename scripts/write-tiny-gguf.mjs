// Writes the tiny test model (scripts/tiny-gguf.mjs) to a file: node scripts/write-tiny-gguf.mjs out.gguf
import { writeFileSync } from 'node:fs'
import { tinyGguf } from './tiny-gguf.mjs'

const target = process.argv[2]
if (!target) {
  console.error('usage: node scripts/write-tiny-gguf.mjs <out.gguf>')
  process.exit(1)
}
const bytes = tinyGguf()
writeFileSync(target, bytes)
console.log(`${target}: ${bytes.length} bytes`)
