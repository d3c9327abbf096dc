import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// A plain app config: nothing here knows the package's source, only node_modules/advisor-chain.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
})
