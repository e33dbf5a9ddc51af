<#
.SYNOPSIS
    Builds IdeA for Windows: the one-folder build dist\idea\idea.exe, smoke-tested, then the
    installer dist\IdeA-<version>-setup.exe.

.DESCRIPTION
    From the repository root (wherever it is run from): a virtual environment .venv with the
    project and its dev extras (PyInstaller, the MCP SDK), the web UI (npm ci, npm run build in
    ui\), `pyinstaller --noconfirm build.spec`, a smoke test of the frozen `idea.exe --version`
    and `idea.exe mcp-server` driven by the official MCP SDK client (smoke_mcp.py), then makensis
    on idea.nsi with the package version. Stops at the first failing step.

    The installer targets amd64-unicode. The NSIS release for Windows ships x86 stubs only, so
    its makensis cannot build it; Debian's and Ubuntu's `nsis` package can. The CI workflow
    (.github\workflows\windows.yml) therefore runs this script with -SkipInstaller and builds the
    installer on Linux (`make installer`). Pass -Makensis for an NSIS that has amd64 stubs.

.PARAMETER Python
    The Python (3.11 or later) that creates .venv. Default: `python` on PATH.

.PARAMETER Makensis
    makensis.exe to use. Default: makensis on PATH, else the NSIS install folder.

.PARAMETER SkipInstaller
    Stop after the smoke test: dist\idea is built and checked, no installer is made.

.EXAMPLE
    powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
#>
[CmdletBinding()]
param(
    [string]$Python = 'python',
    [string]$Makensis = '',
    [switch]$SkipInstaller
)

$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest

# A native command's failure is an exit code, not an exception: turn it into one.
function Invoke-Checked {
    param(
        [Parameter(Mandatory)][string]$Command,
        [string[]]$Arguments = @()
    )
    Write-Host "> $Command $($Arguments -join ' ')"
    & $Command @Arguments
    if ($LASTEXITCODE -ne 0) {
        throw "'$Command $($Arguments -join ' ')' failed with exit code $LASTEXITCODE"
    }
}

$Root = (Resolve-Path (Join-Path $PSScriptRoot '..\..')).Path
Set-Location $Root

# 1. The virtual environment: the project (editable, as `make install` does) and its dev extras.
$Venv = Join-Path $Root '.venv'
$Py = Join-Path $Venv 'Scripts\python.exe'
if (-not (Test-Path -LiteralPath $Py)) {
    Invoke-Checked $Python @('-m', 'venv', $Venv)
}
Invoke-Checked $Py @('-m', 'pip', 'install', '--quiet', '--upgrade', 'pip')
Invoke-Checked $Py @('-m', 'pip', 'install', '--quiet', '-e', '.[dev]')

$Version = & $Py -c 'import idea; print(idea.__version__)'
if ($LASTEXITCODE -ne 0 -or -not $Version) { throw 'cannot read idea.__version__' }
$Version = "$Version".Trim()
# The installer's version resource wants four numbers: X.Y.Z of the package version, then 0.
if ($Version -notmatch '^(\d+)\.(\d+)(?:\.(\d+))?') { throw "unexpected version '$Version'" }
$Patch = if ($Matches[3]) { $Matches[3] } else { '0' }
$VersionQuad = '{0}.{1}.{2}.0' -f $Matches[1], $Matches[2], $Patch
Write-Host "IdeA $Version"

# 2. The web UI, bundled by build.spec from ui\dist. npm.cmd, not the npm.ps1 shim, which an
# execution policy may forbid.
Push-Location (Join-Path $Root 'ui')
try {
    Invoke-Checked 'npm.cmd' @('ci', '--no-audit', '--no-fund', '--loglevel=error')
    Invoke-Checked 'npm.cmd' @('run', 'build')
}
finally {
    Pop-Location
}

# 3. The one-folder build.
Invoke-Checked $Py @('-m', 'PyInstaller', '--noconfirm', 'build.spec')
$Dist = Join-Path $Root 'dist\idea'
$Exe = Join-Path $Dist 'idea.exe'
if (-not (Test-Path -LiteralPath $Exe)) { throw "$Exe was not built" }
# The uninstaller removes idea.exe and _internal\ by name: anything else would be left behind.
$Unexpected = @(Get-ChildItem -LiteralPath $Dist -Force |
        Where-Object { $_.Name -notin @('idea.exe', '_internal') } |
        ForEach-Object Name)
if ($Unexpected.Count -gt 0) {
    throw "dist\idea holds $($Unexpected -join ', '): teach idea.nsi's uninstaller about them"
}

# 4. The smoke test: the frozen bridge, as an agent's CLI would start it.
Invoke-Checked $Py @((Join-Path $PSScriptRoot 'smoke_mcp.py'), $Exe)

if ($SkipInstaller) {
    Write-Host "built and smoke-tested $Dist (no installer: -SkipInstaller)"
    return
}

# 5. The installer.
if (-not $Makensis) {
    $Found = Get-Command 'makensis.exe' -ErrorAction SilentlyContinue
    $Default = Join-Path ${env:ProgramFiles(x86)} 'NSIS\makensis.exe'
    if ($Found) { $Makensis = $Found.Source }
    elseif (Test-Path -LiteralPath $Default) { $Makensis = $Default }
    else { throw 'makensis not found: install NSIS or pass -Makensis (or use -SkipInstaller)' }
}
$Installer = Join-Path $Root "dist\IdeA-$Version-setup.exe"
$NsisArgs = @(
    '-V2', '-WX',
    "-DVERSION=$Version", "-DVERSION_QUAD=$VersionQuad",
    "-DDIST=$Dist", "-DOUTFILE=$Installer",
    (Join-Path $PSScriptRoot 'idea.nsi')
)
Write-Host "> $Makensis $($NsisArgs -join ' ')"
& $Makensis @NsisArgs
if ($LASTEXITCODE -ne 0) {
    throw ("makensis failed with exit code $LASTEXITCODE. If it cannot find the amd64-unicode " +
        'stubs: this NSIS has x86 stubs only; build the installer on Linux with the nsis ' +
        'package (make installer WIN_DIST=<this dist\idea>) or pass -Makensis')
}
Write-Host "installer: $Installer"
