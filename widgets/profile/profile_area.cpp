// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/profile_area.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/cuda/compiler_options.h"
#include "core/cuda/nsight_compute.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/occupancy.h"
#include "core/eval/candidate.h"
#include "core/store/run_store.h"
#include "widgets/editor/code_editor.h"
#include "widgets/editor/find_bar.h"
#include "widgets/plots/plot_legend.h"
#include "widgets/profile/compare_view.h"
#include "widgets/profile/counters_view.h"
#include "widgets/profile/diagnostic_model.h"
#include "widgets/profile/evaluation_view.h"
#include "widgets/profile/run_history.h"
#include "widgets/state/compile_service.h"
#include "widgets/state/evaluation_service.h"
#include "widgets/state/workbench_state.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <map>

namespace dice {

namespace {

// Compiler Explorer's habit: a source line and the instructions made from it share a light
// colour, so a glance pairs them. Six colours, in turn, light enough for text on top.
constexpr int kBandCount = 6;
constexpr int kFirstBandMarker = 10;
constexpr int kHighlightMarker = 20;

QColor bandColour(int band) {
    static const QColor colours[kBandCount] = {QColor(0xdd, 0xee, 0xff), QColor(0xe2, 0xf5, 0xdc),
                                               QColor(0xfb, 0xe3, 0xe8), QColor(0xee, 0xe4, 0xfa),
                                               QColor(0xfd, 0xf0, 0xd8), QColor(0xd9, 0xf3, 0xf1)};
    return colours[band % kBandCount];
}

const char* const kSampleKernel =
    R"(// A kernel to compile: edit it and the diagnostics, PTX and resources follow.
extern "C" __global__ void scale_add(const float* __restrict__ x, const float* __restrict__ y,
                                     float* __restrict__ out, float alpha, long long n)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = alpha * x[i] + y[i];
}
)";

bool isNativeCandidate(const QString& text) {
    return text.contains(QLatin1String("#pragma dice device"));
}

} // namespace

ProfileArea::ProfileArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state) {
    m_editor = new CodeEditor(this);
    m_editor->setLanguage(CodeEditor::Language::Cuda);
    m_findBar = new FindBar(m_editor, this);
    // Above the colour bands' markers: Scintilla paints the highest-numbered background.
    m_sourceMarker = m_editor->markerDefine(QsciScintilla::Background, kHighlightMarker);
    m_editor->setMarkerBackgroundColor(QColor(0xff, 0xf4, 0xc0), m_sourceMarker);

    m_archLabel = new QLabel(this);
    m_arch = new QComboBox(this);
    for (const std::string& arch : knownArchitectures())
        m_arch->addItem(QString::fromStdString(arch));
    m_arch->setCurrentText(QString::fromStdString(NvrtcCompiler::defaultArchitecture()));
    m_compilerOptionsLabel = new QLabel(this);
    m_compilerOptions = new QLineEdit(this);
    m_compilerOptions->setObjectName(QStringLiteral("CompilerOptions"));
    m_compilerOptions->setClearButtonEnabled(true);
    m_compilerOptions->setMinimumWidth(160);
    m_autoCompile = new QCheckBox(this);
    m_autoCompile->setChecked(true);
    m_compile = new QPushButton(this);
    m_evaluate = new QPushButton(this);
    m_evaluate->setObjectName(QStringLiteral("EvaluateButton"));
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(m_archLabel);
    toolbar->addWidget(m_arch);
    toolbar->addWidget(m_compilerOptionsLabel);
    toolbar->addWidget(m_compilerOptions, 1);
    toolbar->addWidget(m_autoCompile);
    toolbar->addWidget(m_compile);
    toolbar->addWidget(m_evaluate);

    m_diagnosticModel = new DiagnosticModel(this);
    m_sortedDiagnostics = new QSortFilterProxyModel(this);
    m_sortedDiagnostics->setSourceModel(m_diagnosticModel);
    m_sortedDiagnostics->setSortRole(DiagnosticModel::SortRole);
    m_diagnostics = new QTreeView(this);
    m_diagnostics->setModel(m_sortedDiagnostics);
    m_diagnostics->setRootIsDecorated(false);
    // Short columns as narrow as their contents; a long message wraps instead of being cut.
    m_diagnostics->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_diagnostics->header()->setSectionResizeMode(DiagnosticModel::MessageColumn,
                                                  QHeaderView::Stretch);
    m_diagnostics->setWordWrap(true);
    // In the compiler's order until a header is clicked (and again on a third click).
    m_diagnostics->header()->setSortIndicatorClearable(true);
    m_diagnostics->header()->setSortIndicator(-1, Qt::AscendingOrder);
    m_diagnostics->setSortingEnabled(true);
    connect(m_diagnostics, &QTreeView::activated, this, &ProfileArea::jumpToDiagnostic);
    connect(m_diagnostics, &QTreeView::clicked, this, &ProfileArea::jumpToDiagnostic);

    m_ptx = new CodeEditor(this);
    m_ptx->setObjectName(QStringLiteral("PtxView"));
    m_ptx->setLanguage(CodeEditor::Language::Ptx);
    m_ptx->setReadOnly(true);
    m_ptxMarker = m_ptx->markerDefine(QsciScintilla::Background, kHighlightMarker);
    m_ptx->setMarkerBackgroundColor(QColor(0xff, 0xf4, 0xc0), m_ptxMarker);
    for (int band = 0; band < kBandCount; ++band)
        for (CodeEditor* view : {m_editor, m_ptx}) {
            view->markerDefine(QsciScintilla::Background, kFirstBandMarker + band);
            view->setMarkerBackgroundColor(bandColour(band), kFirstBandMarker + band);
        }
    m_colourBands = new QCheckBox(this);
    m_colourBands->setObjectName(QStringLiteral("ColourBands"));
    connect(m_colourBands, &QCheckBox::toggled, this, &ProfileArea::showColourBands);
    m_sass = new CodeEditor(this);
    m_sass->setObjectName(QStringLiteral("SassView"));
    m_sass->setLanguage(CodeEditor::Language::Plain);
    m_sass->setReadOnly(true);
    m_sassMarker = m_sass->markerDefine(QsciScintilla::Background, 6);
    m_sass->setMarkerBackgroundColor(QColor(0xff, 0xf4, 0xc0), m_sassMarker);

    m_resources = new QTableWidget(this);
    m_resources->setColumnCount(8);
    m_resources->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_resources->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_occupancy = new QCustomPlot(this);
    m_occupancy->setObjectName(QStringLiteral("OccupancyPlot"));
    m_occupancy->setMinimumHeight(180);
    placeLegendAbove(m_occupancy);
    m_occupancy->yAxis->setRange(0, 105);
    m_occupancy->xAxis->setRange(0, 1056);
    m_occupancyNote = new QLabel(this);
    m_occupancyNote->setWordWrap(true);
    auto* resourcesPage = new QSplitter(Qt::Vertical, this);
    resourcesPage->addWidget(m_resources);
    auto* plotPage = new QWidget(this);
    auto* plotLayout = new QVBoxLayout(plotPage);
    plotLayout->setContentsMargins(0, 0, 0, 0);
    plotLayout->addWidget(m_occupancy, 1);
    plotLayout->addWidget(m_occupancyNote);
    resourcesPage->addWidget(plotPage);

    m_evaluationView = new EvaluationView(this);
    m_history = new RunHistory(this);
    m_history->setStore(m_state->runStore(), m_state->runStoreError());

    m_tabs = new QTabWidget(this);
    // Six tabs side by side would set the panel's least width; they scroll instead, so the
    // editor keeps its share on a laptop screen.
    m_tabs->setUsesScrollButtons(true);
    m_tabs->setElideMode(Qt::ElideNone);
    m_tabs->addTab(m_diagnostics, QString());
    auto* ptxPage = new QWidget(this);
    auto* ptxLayout = new QVBoxLayout(ptxPage);
    ptxLayout->setContentsMargins(0, 0, 0, 0);
    ptxLayout->addWidget(m_colourBands);
    ptxLayout->addWidget(m_ptx, 1);
    m_tabs->addTab(ptxPage, QString());
    m_tabs->addTab(m_sass, QString());
    m_tabs->addTab(resourcesPage, QString());
    m_tabs->addTab(m_evaluationView, QString());
    m_tabs->addTab(m_history, QString());
    m_compare = new CompareView(m_tabs);
    m_tabs->addTab(m_compare, QString());
    m_counters = new CountersView(m_tabs);
    m_tabs->addTab(m_counters, QString());
    m_ncu = QString::fromStdString(findNcu());
    connect(m_counters, &CountersView::collectRequested, this, &ProfileArea::collectCounters);

    auto* editorColumn = new QWidget(this);
    auto* editorLayout = new QVBoxLayout(editorColumn);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->addWidget(m_editor, 1);
    editorLayout->addWidget(m_findBar);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(editorColumn);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    m_splitter = splitter;

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    // A line of its own: a long status (a refused option, an evaluation's stage) wraps there
    // instead of squeezing the toolbar.
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    layout->addWidget(splitter, 1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(500);
    connect(m_debounce, &QTimer::timeout, this, &ProfileArea::compileNow);
    connect(m_editor, &QsciScintilla::textChanged, this, [this] {
        // Lines move with the edit: the bands come back with the next compile.
        clearColourBands();
        m_state->setCandidate(m_editor->text());
        if (m_autoCompile->isChecked())
            m_debounce->start();
    });
    connect(m_state, &WorkbenchState::candidateChanged, this, [this](const QString& source) {
        if (source != m_editor->text())
            setSource(source);
    });
    connect(m_editor, &QsciScintilla::cursorPositionChanged, this,
            [this](int line, int) { showSourceLine(line + 1); });
    connect(m_ptx, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
        const int source = m_ptxMap.sourceLine(line);
        m_editor->markerDeleteAll(m_sourceMarker);
        if (source > 0) {
            m_editor->markerAdd(source - 1, m_sourceMarker);
            m_editor->ensureLineVisible(source - 1);
        }
    });
    connect(m_sass, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
        const int source = m_sassText.sourceLine(line);
        m_editor->markerDeleteAll(m_sourceMarker);
        if (source > 0) {
            m_editor->markerAdd(source - 1, m_sourceMarker);
            m_editor->ensureLineVisible(source - 1);
        }
    });
    connect(m_compile, &QPushButton::clicked, this, &ProfileArea::compileNow);
    connect(m_evaluate, &QPushButton::clicked, this, &ProfileArea::evaluateNow);
    connect(m_arch, &QComboBox::currentTextChanged, this, [this] { compileNow(); });
    connect(m_compilerOptions, &QLineEdit::editingFinished, this, [this] {
        if (m_compilerOptions->text() != m_compiledOptions)
            compileNow();
    });
    connect(m_state, &WorkbenchState::systemInfoChanged, this, &ProfileArea::retranslate);
    connect(m_state, &WorkbenchState::currentTaskChanged, this, [this] {
        if (const Task* task = m_state->currentTask())
            m_history->setTaskFilter(QString::fromStdString(task->name));
        retranslate();
    });
    connect(m_state, &WorkbenchState::baselineChanged, this, &ProfileArea::loadBaseline);
    connect(m_state, &WorkbenchState::runAdded, m_history, &RunHistory::refresh);
    connect(m_history, &RunHistory::baselineChanged, m_state, &WorkbenchState::reloadBaseline);
    connect(m_history, &RunHistory::openRun, this, &ProfileArea::openRun);

    setSource(m_state->candidate().isEmpty() ? QString::fromLatin1(kSampleKernel)
                                             : m_state->candidate());
    retranslate();
    loadBaseline();
}

void ProfileArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ProfileArea::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    // The first time it is seen, three fifths to the editor: left to their size hints, the tab
    // row's width would take the larger share.
    if (!m_splitterSized && m_splitter->width() > 0) {
        m_splitterSized = true;
        const int width = m_splitter->width();
        m_splitter->setSizes({width * 3 / 5, width - width * 3 / 5});
    }
}

void ProfileArea::retranslate() {
    m_archLabel->setText(tr("Target:"));
    m_colourBands->setText(tr("Colour bands"));
    m_colourBands->setToolTip(
        tr("Each source line and the instructions made from it in one colour"));
    m_compilerOptionsLabel->setText(tr("Options:"));
    m_compilerOptions->setPlaceholderText(tr("e.g. --use_fast_math -maxrregcount=64 -DTILE=32"));
    m_compilerOptions->setToolTip(
        tr("More NVRTC options for this compile and for Evaluate. Allowed: %1. Headers come from "
           "the CUDA toolkit only.")
            .arg(QString::fromStdString(allowedCompilerOptions())));
    m_autoCompile->setText(tr("Compile after edits"));
    m_compile->setText(tr("Compile"));
    m_evaluate->setText(tr("Evaluate"));
    const Task* task = m_state->currentTask();
    const bool native = isNativeCandidate(m_editor->text());
    m_evaluate->setEnabled(task && native && !m_state->evaluationService()->busy());
    if (!task)
        m_evaluate->setToolTip(tr("Select the task this candidate solves in the task browser"));
    else if (!native)
        m_evaluate->setToolTip(tr("Evaluation needs a candidate in the native dialect "
                                  "(#pragma dice device / #pragma dice host)"));
    else if (!m_state->gpuAvailable())
        m_evaluate->setToolTip(tr("No GPU: the candidate is compiled and inspected, not run"));
    else
        m_evaluate->setToolTip(
            tr("Check and time the candidate against %1").arg(QString::fromStdString(task->name)));
    m_tabs->setTabText(DiagnosticsTab, tr("Diagnostics"));
    m_tabs->setTabText(PtxTab, tr("PTX"));
    m_tabs->setTabText(SassTab, tr("SASS"));
    m_tabs->setTabText(ResourcesTab, tr("Resources and occupancy"));
    m_tabs->setTabText(EvaluationTab, tr("Evaluation"));
    m_tabs->setTabText(HistoryTab, tr("History"));
    m_tabs->setTabText(CompareTab, tr("Compare with baseline"));
    m_tabs->setTabText(CountersTab, tr("Counters"));
    updateCounters();
    m_diagnosticModel->retranslate();
    m_resources->setHorizontalHeaderLabels(
        {tr("Kernel"), tr("Registers"), tr("Shared memory"), tr("Stack frame"), tr("Spill stores"),
         tr("Spill loads"), tr("Barriers"), tr("Occupancy at 256 threads")});
    m_occupancy->xAxis->setLabel(tr("Threads per block"));
    m_occupancy->yAxis->setLabel(tr("Theoretical occupancy (%)"));
    if (m_haveResult)
        showResult(m_last);
    else if (!NvrtcCompiler::available())
        m_status->setText(tr("This build has no NVRTC: kernels cannot be compiled"));
}

void ProfileArea::setSource(const QString& source) {
    m_editor->setText(source);
    m_editor->setModified(false);
    m_filePath.clear();
    retranslate();
}

bool ProfileArea::openFile(const QString& path, QString* error) {
    std::string text;
    try {
        text = readTextFile(path.toStdString(), limits::kCandidate);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    setSource(QString::fromStdString(text));
    m_filePath = path;
    return true;
}

bool ProfileArea::saveFile(const QString& path, QString* error) {
    try {
        writeFileAtomically(path.toStdString(), m_editor->text().toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_filePath = path;
    m_editor->setModified(false);
    return true;
}

bool ProfileArea::hasUnsavedEdits() const {
    return m_editor->isModified();
}

QString ProfileArea::statusText() const {
    return m_status->text();
}

QString ProfileArea::compiledFileName() const {
    return isNativeCandidate(m_editor->text()) ? QStringLiteral("candidate.dice")
                                               : QStringLiteral("kernel.cu");
}

bool ProfileArea::compilerOptionsValid() {
    try {
        parseCompilerOptions(m_compilerOptions->text().toStdString());
    } catch (const Error& e) {
        m_compilerOptions->setStyleSheet(QStringLiteral("QLineEdit { color: #c00000; }"));
        m_status->setText(QString::fromUtf8(e.what()));
        return false;
    }
    m_compilerOptions->setStyleSheet(QString());
    return true;
}

void ProfileArea::compileNow() {
    m_debounce->stop();
    if (!compilerOptionsValid())
        return;
    m_compiledOptions = m_compilerOptions->text();
    const QString text = m_editor->text();
    m_compiledName = compiledFileName();
    m_compiledText = text;
    m_status->setText(tr("Compiling for %1…").arg(m_arch->currentText()));
    CompileJob* job = m_state->compileService()->compile(text, m_compiledName, compileOptions());
    connect(job, &CompileJob::finished, this, &ProfileArea::showResult);
    compileBaseline();
}

CompileOptions ProfileArea::compileOptions() const {
    CompileOptions options;
    options.architecture = m_arch->currentText().toStdString();
    options.lineInfo = true;
    applyCompilerOptions(options, m_compilerOptions->text().toStdString());
    return options;
}

void ProfileArea::compileBaseline() {
    const int generation = ++m_baselineCompiles;
    const auto& run = m_state->baseline();
    if (!run) {
        m_compare->clearBaseline();
        return;
    }
    const QString source = QString::fromStdString(run->source);
    const QString label = tr("run #%1").arg(run->id);
    // Under the editor's file name, so that the PTX's file directives do not differ.
    CompileJob* job = m_state->compileService()->compileBeside(
        source, m_compiledName.isEmpty() ? compiledFileName() : m_compiledName, compileOptions());
    connect(job, &CompileJob::finished, this,
            [this, generation, source, label](const CompileResult& result) {
                if (generation == m_baselineCompiles)
                    m_compare->setBaseline(label, source, result);
            });
}

void ProfileArea::showResult(const CompileResult& result) {
    m_last = result;
    m_compare->setCurrent(m_compiledText, result);
    m_haveResult = true;
    m_editor->clearDiagnostics();
    for (const auto& d : result.diagnostics)
        m_editor->addDiagnostic(d.line, d.column, d.severity == Severity::Error,
                                QString::fromStdString(d.message));
    m_diagnosticModel->setDiagnostics(result.diagnostics);
    m_ptx->setText(QString::fromStdString(result.ptx));
    m_ptxMap = PtxLineMap::build(result.ptx, m_compiledName.toStdString());
    showColourBands();
    int line = 0;
    int index = 0;
    m_editor->getCursorPosition(&line, &index);
    showSourceLine(line + 1);

    const auto limits = smLimits(result.architecture.empty() ? m_arch->currentText().toStdString()
                                                             : result.architecture);
    m_resources->setRowCount(static_cast<int>(result.resources.size()));
    for (int row = 0; row < static_cast<int>(result.resources.size()); ++row) {
        const auto& r = result.resources[static_cast<size_t>(row)];
        QString occupancy;
        if (limits) {
            const auto o = theoreticalOccupancy(*limits, 256, r.registers, r.sharedBytes);
            occupancy = tr("%1% (%2)")
                            .arg(qRound(o.fraction * 100))
                            .arg(QString::fromStdString(toString(o.limiter)));
        }
        const QStringList cells = {
            QString::fromStdString(r.function), QString::number(r.registers),
            tr("%1 B").arg(r.sharedBytes),      tr("%1 B").arg(r.stackFrameBytes),
            tr("%1 B").arg(r.spillStoreBytes),  tr("%1 B").arg(r.spillLoadBytes),
            QString::number(r.barriers),        occupancy};
        for (int c = 0; c < cells.size(); ++c)
            m_resources->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    updateOccupancy();
    runDisassembler();
    if (result.ok) {
        m_status->setText(tr("Compiled for %1 in %2 ms%3: %n kernel(s), %4 warning(s)", nullptr,
                             static_cast<int>(result.resources.size()))
                              .arg(QString::fromStdString(result.architecture))
                              .arg(result.milliseconds, 0, 'f', 1)
                              .arg(result.fromCache ? tr(" (cached)") : QString())
                              .arg(result.warningCount()));
    } else {
        m_status->setText(
            tr("Compilation failed: %n error(s)", nullptr, std::max(1, result.errorCount())));
        m_tabs->setCurrentIndex(DiagnosticsTab);
    }
    updateEvaluateButton();
    Q_EMIT compiled(result);
}

void ProfileArea::clearColourBands() {
    for (int band = 0; band < kBandCount; ++band) {
        m_editor->markerDeleteAll(kFirstBandMarker + band);
        m_ptx->markerDeleteAll(kFirstBandMarker + band);
    }
}

void ProfileArea::showColourBands() {
    clearColourBands();
    if (!m_colourBands->isChecked())
        return;
    // Each source line with instructions gets the next colour, in the order its instructions
    // first appear in the PTX; its instructions get the same colour.
    std::map<int, int> bandOf;
    for (int line = 0; line < m_ptxMap.ptxLineCount(); ++line) {
        const int source = m_ptxMap.sourceLine(line);
        if (source <= 0 || source > m_editor->lines())
            continue;
        const auto [found, added] =
            bandOf.emplace(source, static_cast<int>(bandOf.size()) % kBandCount);
        if (added)
            m_editor->markerAdd(source - 1, kFirstBandMarker + found->second);
        m_ptx->markerAdd(line, kFirstBandMarker + found->second);
    }
}

void ProfileArea::updateEvaluateButton() {
    const Task* task = m_state->currentTask();
    m_evaluate->setEnabled(task && isNativeCandidate(m_editor->text()) &&
                           !m_state->evaluationService()->busy());
    updateCounters();
}

void ProfileArea::updateCounters() {
    const auto& system = m_state->systemInfo();
    if (system && !system->devices.empty())
        m_counters->setCeilings(system->devices.front().peakBandwidth(),
                                system->devices.front().peakFp32Flops());
    m_counters->setAvailability(m_state->gpuAvailable(), m_ncu);
    const Task* task = m_state->currentTask();
    if (!task)
        m_counters->setReady(false,
                             tr("Select the task this candidate solves in the task browser"));
    else if (!isNativeCandidate(m_editor->text()))
        m_counters->setReady(false, tr("Counters are read of a candidate in the native dialect "
                                       "(#pragma dice device / #pragma dice host)"));
    else
        m_counters->setReady(true, QString());
}

void ProfileArea::collectCounters() {
    const Task* task = m_state->currentTask();
    if (!task || !isNativeCandidate(m_editor->text()) || !compilerOptionsValid())
        return;
    m_counters->collect(QString::fromStdString(task->path.empty() ? task->name : task->path),
                        m_editor->text(), QStringLiteral("bench"), m_compilerOptions->text());
}

void ProfileArea::showSourceLine(int line) {
    m_ptx->markerDeleteAll(m_ptxMarker);
    m_highlighted = m_ptxMap.ptxLines(line);
    for (int ptxLine : m_highlighted)
        m_ptx->markerAdd(ptxLine, m_ptxMarker);
    if (!m_highlighted.empty()) {
        // Show the first instruction of the line near the top of the PTX view.
        m_ptx->setFirstVisibleLine(std::max(0, m_highlighted.front() - 3));
    }
    m_sass->markerDeleteAll(m_sassMarker);
    m_highlightedSass = m_sassText.instructionLines(line);
    for (int sassLine : m_highlightedSass)
        m_sass->markerAdd(sassLine, m_sassMarker);
    if (!m_highlightedSass.empty())
        m_sass->setFirstVisibleLine(std::max(0, m_highlightedSass.front() - 3));
}

void ProfileArea::updateOccupancy() {
    m_occupancy->clearGraphs();
    const auto limits = smLimits(m_last.architecture.empty() ? m_arch->currentText().toStdString()
                                                             : m_last.architecture);
    if (!limits) {
        m_occupancyNote->setText(tr("No occupancy table for %1.").arg(m_arch->currentText()));
        m_occupancy->replot();
        return;
    }
    const QList<QColor> colors = {QColor(0x2a, 0x7f, 0xd4), QColor(0xd4, 0x6a, 0x2a),
                                  QColor(0x3a, 0xa0, 0x50), QColor(0x90, 0x50, 0xc0)};
    QStringList notes;
    int index = 0;
    for (const auto& r : m_last.resources) {
        if (index >= colors.size())
            break;
        QVector<double> x;
        QVector<double> y;
        int bestThreads = 0;
        double best = -1;
        for (int threads = 32; threads <= limits->maxThreadsPerBlock; threads += 32) {
            const auto o = theoreticalOccupancy(*limits, threads, r.registers, r.sharedBytes);
            x << threads;
            y << o.fraction * 100.0;
            if (o.fraction > best) {
                best = o.fraction;
                bestThreads = threads;
            }
        }
        QCPGraph* graph = m_occupancy->addGraph();
        graph->setName(QString::fromStdString(r.function));
        graph->setData(x, y, true);
        graph->setLineStyle(QCPGraph::lsStepCenter);
        graph->setPen(QPen(colors[index], 2));
        const auto at256 = theoreticalOccupancy(*limits, 256, r.registers, r.sharedBytes);
        notes << tr("%1: %2 registers, %3 B shared; %4% at 256 threads (limited by %5), best "
                    "%6% from %7 threads.")
                     .arg(QString::fromStdString(r.function))
                     .arg(r.registers)
                     .arg(r.sharedBytes)
                     .arg(qRound(at256.fraction * 100))
                     .arg(QString::fromStdString(toString(at256.limiter)))
                     .arg(qRound(best * 100))
                     .arg(bestThreads);
        ++index;
    }
    m_occupancy->xAxis->setRange(0, limits->maxThreadsPerBlock + 32);
    m_occupancy->yAxis->setRange(0, 105);
    m_occupancyNote->setText(notes.isEmpty()
                                 ? tr("Compile to see the occupancy of each kernel on "
                                      "%1.")
                                       .arg(QString::fromStdString(limits->architecture))
                                 : notes.join(QLatin1Char('\n')));
    m_occupancy->replot();
}

void ProfileArea::runDisassembler() {
    m_sassText = SassText();
    m_highlightedSass.clear();
    m_sass->markerDeleteAll(m_sassMarker);
    if (m_last.cubin.empty()) {
        m_sass->setText(QString());
        return;
    }
    m_sass->setText(tr("// Disassembling…"));
    DisassemblyJob* job =
        m_state->compileService()->disassemble(m_last.cubin, m_compiledName, m_editor->text());
    connect(job, &DisassemblyJob::finished, this, &ProfileArea::showSass);
}

void ProfileArea::showSass(const QString& tool, const QString& error, const SassText& text) {
    if (tool.isEmpty()) {
        m_sass->setText(tr("// SASS is shown when nvdisasm or cuobjdump (CUDA toolkit) is on "
                           "the PATH."));
        return;
    }
    if (!error.isEmpty()) {
        m_sass->setText(tr("// The SASS could not be made: %1").arg(error));
        return;
    }
    m_sassText = text;
    m_sass->setText(QString::fromStdString(text.text()));
    int line = 0;
    int index = 0;
    m_editor->getCursorPosition(&line, &index);
    showSourceLine(line + 1);
}

void ProfileArea::jumpToDiagnostic(const QModelIndex& index) {
    if (!index.isValid())
        return;
    m_editor->goToLine(index.data(DiagnosticModel::LineRole).toInt(),
                       index.data(DiagnosticModel::ColumnRole).toInt());
}

void ProfileArea::evaluateNow() {
    const Task* task = m_state->currentTask();
    if (!task || !isNativeCandidate(m_editor->text()))
        return;
    if (!compilerOptionsValid())
        return;
    EvalOptions options;
    options.architecture = m_arch->currentText().toStdString();
    options.compilerOptions = m_compilerOptions->text().toStdString();
    m_evaluate->setEnabled(false);
    m_status->setText(tr("Evaluating against %1…").arg(QString::fromStdString(task->name)));
    EvaluationJob* job = m_state->evaluationService()->evaluate(*task, m_editor->text(), options);
    connect(job, &EvaluationJob::progress, this,
            [this](const QString& stage, double fraction, const QString& message) {
                m_status->setText(tr("Evaluating: %1 %2% %3")
                                      .arg(stage)
                                      .arg(static_cast<int>(fraction * 100))
                                      .arg(message));
            });
    connect(job, &EvaluationJob::finished, this,
            [this](const EvaluationResult& result, qint64 runId) {
                m_evaluate->setEnabled(true);
                m_evaluationView->showResult(result);
                m_tabs->setCurrentIndex(EvaluationTab);
                m_status->setText(runId > 0 ? tr("Evaluated (run %1): %2")
                                                  .arg(runId)
                                                  .arg(EvaluationView::verdictSentence(result))
                                            : EvaluationView::verdictSentence(result));
                Q_EMIT evaluated(result);
            });
}

void ProfileArea::loadBaseline() {
    if (compilerOptionsValid())
        compileBaseline();
    if (const auto& run = m_state->baseline()) {
        try {
            m_evaluationView->setBaseline(evaluationFromJson(run->result), run->id);
            return;
        } catch (const std::exception&) {
            // A baseline whose record cannot be read is shown as no baseline.
        }
    }
    m_evaluationView->setBaseline(std::nullopt);
}

bool ProfileArea::openRunById(qint64 id) {
    RunStore* store = m_state->runStore();
    if (!store)
        return false;
    const auto run = store->get(id);
    if (!run)
        return false;
    openRun(*run);
    return true;
}

void ProfileArea::openRun(const RunRecord& run) {
    setSource(QString::fromStdString(run.source));
    m_history->setTaskFilter(QString::fromStdString(run.task));
    m_tabs->setCurrentIndex(EvaluationTab);
    try {
        m_evaluationView->showResult(evaluationFromJson(run.result));
    } catch (const std::exception& e) {
        m_status->setText(QString::fromStdString(e.what()));
    }
}

} // namespace dice
