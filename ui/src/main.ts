// The app's entry: the shell (views/app.tsx) rendered into the page, then the keys, the
// notifications and the server's events wired to it, and the connection opened.

import { createElement, render } from "preact";

import { api } from "./model/api";
import { App, Shell } from "./views/app";
import { wireEvents } from "./views/appevents";
import { askPermissionOnGesture } from "./views/notify";
import { installShortcuts } from "./views/shortcuts";
import "./style.css";

// The page load set the auth cookie; keep the token out of the address bar and history.
if (location.search.includes("token=")) history.replaceState(null, "", "/");

const shell = new Shell();
render(createElement(App, { shell }), document.getElementById("app")!);
installShortcuts(
  (action) => shell.run(action),
  () => ({ maximized: shell.workspace.maximized }),
);
askPermissionOnGesture();
wireEvents(shell);
(window as unknown as { ideaReady: Promise<void> }).ideaReady = shell.ready;

api.connect();
