import { defineConfig } from "vite";

// Built into ui/dist, served by the local UI server (idea/app/ui/server.py).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1000 },
});
