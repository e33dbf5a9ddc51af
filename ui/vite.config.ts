import { defineConfig } from "vite";

// Built into ui/dist, served by the local UI server (idea/app/ui/server.py). Views are TSX on
// Preact: esbuild compiles the JSX with Preact's automatic runtime (tsconfig says the same to tsc).
export default defineConfig({
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1000 },
});
