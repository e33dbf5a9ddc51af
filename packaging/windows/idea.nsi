; IdeA installer for Windows (DESIGN.md §10): a per-user install of the PyInstaller one-folder
; build, no administrator rights asked.
;
;   makensis -DVERSION=0.1.0 [-DDIST=..\..\dist\idea] [-DOUTFILE=...] packaging\windows\idea.nsi
;
; VERSION is the package version (idea/__init__.py); build.ps1 passes it. DIST is the one-folder
; build: idea.exe and _internal\ (PyInstaller >= 6), the only top-level entries the uninstaller
; removes, so that an install folder the user shares with other files is never wiped. Relative
; paths are relative to this script's folder (makensis runs from there).
;
; Silent: `setup.exe /S [/D=C:\path]` installs, `uninstall.exe /S` uninstalls (the registry's
; QuietUninstallString).

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma
RequestExecutionLevel user
ManifestDPIAware true

!ifndef VERSION
  !error "VERSION is not defined: makensis -DVERSION=<package version> idea.nsi"
!endif
!ifndef DIST
  !define DIST "..\..\dist\idea"
!endif
!ifndef OUTFILE
  !define OUTFILE "..\..\dist\IdeA-${VERSION}-setup.exe"
!endif
; The installer's version resource wants four numbers; a version that is not X.Y.Z passes its own.
!ifndef VERSION_QUAD
  !define VERSION_QUAD "${VERSION}.0"
!endif

!define APP_NAME "IdeA"
!define APP_EXE "idea.exe"
!define PUBLISHER "IdeA"
!define UNINSTALLER "uninstall.exe"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_NAME}"
!define SHORTCUT "$SMPROGRAMS\${APP_NAME}.lnk"

; Fail at compile time, not at install time, when the build is missing.
!if /FileExists "${DIST}\${APP_EXE}"
!else
  !error "${DIST}\${APP_EXE} is missing: build the one-folder build first (pyinstaller build.spec)"
!endif

Name "${APP_NAME}"
OutFile "${OUTFILE}"
; The user's own programs folder (what per-user installers such as VS Code's use); an earlier
; install's folder wins, so an upgrade lands on top of it.
InstallDir "$LOCALAPPDATA\Programs\${APP_NAME}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"

VIProductVersion "${VERSION_QUAD}"
VIFileVersion "${VERSION_QUAD}"
VIAddVersionKey /LANG=1033 "ProductName" "${APP_NAME}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1033 "FileDescription" "${APP_NAME} ${VERSION} setup"
VIAddVersionKey /LANG=1033 "LegalCopyright" "${PUBLISHER}"

!include "MUI2.nsh"
; The app's icon (made from packaging/linux/idea.png) on the installer and the uninstaller.
!define MUI_ICON "idea.ico"
!define MUI_UNICON "idea.ico"
!include "FileFunc.nsh"

!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APP_EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP_NAME}"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

Function .onInit
  ; Per-user: shortcuts in this user's start menu, whoever runs the installer.
  SetShellVarContext current
FunctionEnd

Function un.onInit
  SetShellVarContext current
FunctionEnd

Section "IdeA" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; An upgrade replaces the bundled runtime whole: no module of the previous version lingers.
  RMDir /r "$INSTDIR\_internal"
  File /r "${DIST}\*"

  WriteUninstaller "$INSTDIR\${UNINSTALLER}"
  CreateShortcut "${SHORTCUT}" "$INSTDIR\${APP_EXE}" "" "$INSTDIR\${APP_EXE}" 0

  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP_NAME}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${APP_EXE},0"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" $0
SectionEnd

Section "Uninstall"
  ; Only what the installer put there: the folder itself goes only once it is empty.
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${APP_EXE}"
  Delete "$INSTDIR\${UNINSTALLER}"
  RMDir "$INSTDIR"
  Delete "${SHORTCUT}"
  DeleteRegKey HKCU "${UNINST_KEY}"
SectionEnd
