"""The UI's methods by family (project, agents, layouts, sessions, chat, workspace, work
state, logs); the one table of them is ``idea.app.ui.api.HANDLERS``."""
