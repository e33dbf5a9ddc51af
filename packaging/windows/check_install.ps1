<#
.SYNOPSIS
    Installs IdeA silently for the current user, checks it, runs it, uninstalls it silently and
    checks that nothing is left: the Windows counterpart of tests/packaging/test_nsis_installer.py
    (which runs the same steps under wine with a placeholder build).

.PARAMETER Installer
    The IdeA-<version>-setup.exe to check. Its version must be idea/__init__.py's.
#>
[CmdletBinding()]
param([Parameter(Mandatory)][string]$Installer)

$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest

$Root = (Resolve-Path (Join-Path $PSScriptRoot '..\..')).Path
$Line = Select-String -LiteralPath (Join-Path $Root 'idea\__init__.py') -Pattern '^__version__ = "(.+)"'
if (-not $Line) { throw 'no __version__ in idea\__init__.py' }
$Version = $Line.Matches[0].Groups[1].Value

$Key = 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\IdeA'
$InstallDir = Join-Path $env:LOCALAPPDATA 'Programs\IdeA'
$Exe = Join-Path $InstallDir 'idea.exe'
$Shortcut = Join-Path ([Environment]::GetFolderPath('Programs')) 'IdeA.lnk'

$Setup = Start-Process -FilePath $Installer -ArgumentList '/S' -Wait -PassThru
if ($Setup.ExitCode -ne 0) { throw "installer exited with $($Setup.ExitCode)" }

foreach ($Path in @($Exe, (Join-Path $InstallDir '_internal'), $Shortcut)) {
    if (-not (Test-Path -LiteralPath $Path)) { throw "missing after install: $Path" }
}
$Values = Get-ItemProperty -LiteralPath $Key
if ($Values.DisplayVersion -ne $Version) {
    throw "DisplayVersion '$($Values.DisplayVersion)', expected '$Version'"
}
if ($Values.InstallLocation -ne $InstallDir) {
    throw "InstallLocation '$($Values.InstallLocation)', expected '$InstallDir'"
}
$Target = (New-Object -ComObject WScript.Shell).CreateShortcut($Shortcut).TargetPath
if ($Target -ne $Exe) { throw "the shortcut points at '$Target', not '$Exe'" }

# The installed build runs (the MCP declarations it writes name this very idea.exe).
$Answer = & $Exe --version
if ($LASTEXITCODE -ne 0 -or "$Answer".Trim() -ne "idea $Version") {
    throw "'$Exe --version' answered '$Answer' (exit $LASTEXITCODE)"
}

# What Settings > Apps runs for a silent removal. The uninstaller re-executes itself from %TEMP%
# and returns at once: wait for its work to be done, bounded.
if ($Values.QuietUninstallString -notmatch '^"([^"]+)" (/S)$') {
    throw "QuietUninstallString '$($Values.QuietUninstallString)'"
}
$Uninstall = Start-Process -FilePath $Matches[1] -ArgumentList $Matches[2] -Wait -PassThru
if ($Uninstall.ExitCode -ne 0) { throw "uninstaller exited with $($Uninstall.ExitCode)" }
$Deadline = (Get-Date).AddSeconds(120)
while ((Test-Path -LiteralPath $InstallDir) -or (Test-Path -LiteralPath $Shortcut) -or
    (Test-Path -LiteralPath $Key)) {
    if ((Get-Date) -gt $Deadline) {
        throw "left after uninstall: $(@($InstallDir, $Shortcut, $Key) | Where-Object { Test-Path -LiteralPath $_ })"
    }
    Start-Sleep -Milliseconds 200
}
Write-Host "IdeA $Version installed to $InstallDir, ran, and uninstalled cleanly"
