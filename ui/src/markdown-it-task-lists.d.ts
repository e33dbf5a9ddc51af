// markdown-it-task-lists ships no types: the plugin signature markdown-it expects.
declare module "markdown-it-task-lists" {
  import type { MarkdownIt } from "markdown-it";
  type Options = { enabled?: boolean; label?: boolean; labelAfter?: boolean };
  const taskLists: (md: MarkdownIt, options?: Options) => void;
  export default taskLists;
}
