// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/profile_area.h"

#include "core/cuda/nvrtc_compiler.h"
#include "widgets/editor/code_editor.h"
#include "widgets/profile/compile_service.h"
#include "widgets/shell/workbench_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace dice {

namespace {

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

constexpr int kLineRole = Qt::UserRole + 1;
constexpr int kColumnRole = Qt::UserRole + 2;

} // namespace

ProfileArea::ProfileArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_service(new CompileService(this)) {
    m_editor = new CodeEditor(this);
    m_editor->setLanguage(CodeEditor::Language::Cuda);

    m_archLabel = new QLabel(this);
    m_arch = new QComboBox(this);
    for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"})
        m_arch->addItem(QString::fromLatin1(arch));
    m_arch->setCurrentText(QString::fromStdString(NvrtcCompiler::defaultArchitecture()));
    m_autoCompile = new QCheckBox(this);
    m_autoCompile->setChecked(true);
    m_compile = new QPushButton(this);
    m_evaluate = new QPushButton(this);
    m_evaluate->setEnabled(false);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(m_archLabel);
    toolbar->addWidget(m_arch);
    toolbar->addWidget(m_autoCompile);
    toolbar->addWidget(m_compile);
    toolbar->addWidget(m_evaluate);
    toolbar->addWidget(m_status, 1);

    m_diagnostics = new QTreeWidget(this);
    m_diagnostics->setColumnCount(4);
    m_diagnostics->setRootIsDecorated(false);
    m_diagnostics->header()->setSectionResizeMode(3, QHeaderView::Stretch);
    connect(m_diagnostics, &QTreeWidget::itemActivated, this, &ProfileArea::jumpToDiagnostic);
    connect(m_diagnostics, &QTreeWidget::itemClicked, this, &ProfileArea::jumpToDiagnostic);

    m_ptx = new CodeEditor(this);
    m_ptx->setLanguage(CodeEditor::Language::Ptx);
    m_ptx->setReadOnly(true);

    m_resources = new QTableWidget(this);
    m_resources->setColumnCount(7);
    m_resources->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_resources->setEditTriggers(QAbstractItemView::NoEditTriggers);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_diagnostics, QString());
    m_tabs->addTab(m_ptx, QString());
    m_tabs->addTab(m_resources, QString());

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_editor);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    layout->addWidget(splitter, 1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(500);
    connect(m_debounce, &QTimer::timeout, this, &ProfileArea::compileNow);
    connect(m_editor, &QsciScintilla::textChanged, this, [this] {
        if (m_autoCompile->isChecked())
            m_debounce->start();
    });
    connect(m_compile, &QPushButton::clicked, this, &ProfileArea::compileNow);
    connect(m_arch, &QComboBox::currentTextChanged, this, [this] { compileNow(); });
    connect(m_service, &CompileService::finished, this,
            [this](int, const CompileResult& result) { showResult(result); });
    connect(m_state, &WorkbenchState::systemInfoChanged, this, &ProfileArea::retranslate);

    setSource(QString::fromLatin1(kSampleKernel));
    retranslate();
}

void ProfileArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ProfileArea::retranslate() {
    m_archLabel->setText(tr("Target:"));
    m_autoCompile->setText(tr("Compile after edits"));
    m_compile->setText(tr("Compile"));
    m_evaluate->setText(tr("Evaluate"));
    m_evaluate->setToolTip(m_state->gpuAvailable()
                               ? tr("Evaluation needs a task and a candidate in the native dialect")
                               : tr("No GPU: kernels can be compiled here but not run or timed"));
    m_tabs->setTabText(0, tr("Diagnostics"));
    m_tabs->setTabText(1, tr("PTX"));
    m_tabs->setTabText(2, tr("Resources"));
    m_diagnostics->setHeaderLabels({tr("Severity"), tr("Line"), tr("Column"), tr("Message")});
    m_resources->setHorizontalHeaderLabels({tr("Kernel"), tr("Registers"), tr("Shared memory"),
                                            tr("Stack frame"), tr("Spill stores"),
                                            tr("Spill loads"), tr("Barriers")});
    if (m_haveResult)
        showResult(m_last);
    else if (!NvrtcCompiler::available())
        m_status->setText(tr("This build has no NVRTC: kernels cannot be compiled"));
}

void ProfileArea::setSource(const QString& source) {
    m_editor->setText(source);
}

void ProfileArea::compileNow() {
    m_debounce->stop();
    CompileOptions options;
    options.architecture = m_arch->currentText().toStdString();
    m_status->setText(tr("Compiling for %1…").arg(m_arch->currentText()));
    m_service->compile(m_editor->text(), QStringLiteral("kernel.cu"), options);
}

void ProfileArea::showResult(const CompileResult& result) {
    m_last = result;
    m_haveResult = true;
    m_editor->clearDiagnostics();
    m_diagnostics->clear();
    for (const auto& d : result.diagnostics) {
        const bool error = d.severity == Severity::Error;
        m_editor->addDiagnostic(d.line, d.column, error, QString::fromStdString(d.message));
        auto* item = new QTreeWidgetItem(m_diagnostics);
        item->setText(0, error ? tr("error")
                               : (d.severity == Severity::Warning ? tr("warning") : tr("remark")));
        item->setText(1, QString::number(d.line));
        item->setText(2, d.column > 0 ? QString::number(d.column) : QString());
        item->setText(3, QString::fromStdString(d.message));
        item->setData(0, kLineRole, d.line);
        item->setData(0, kColumnRole, d.column);
        item->setForeground(0, error ? QColor(0xc0, 0x20, 0x20) : QColor(0xa0, 0x70, 0x10));
    }
    m_ptx->setText(QString::fromStdString(result.ptx));
    m_resources->setRowCount(static_cast<int>(result.resources.size()));
    for (int row = 0; row < static_cast<int>(result.resources.size()); ++row) {
        const auto& r = result.resources[static_cast<size_t>(row)];
        const QStringList cells = {
            QString::fromStdString(r.function), QString::number(r.registers),
            tr("%1 B").arg(r.sharedBytes),      tr("%1 B").arg(r.stackFrameBytes),
            tr("%1 B").arg(r.spillStoreBytes),  tr("%1 B").arg(r.spillLoadBytes),
            QString::number(r.barriers)};
        for (int c = 0; c < cells.size(); ++c)
            m_resources->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    if (result.ok) {
        m_status->setText(tr("Compiled for %1 in %2 ms%3: %n kernel(s), %4 warning(s)", nullptr,
                             static_cast<int>(result.resources.size()))
                              .arg(QString::fromStdString(result.architecture))
                              .arg(result.milliseconds, 0, 'f', 1)
                              .arg(result.fromCache ? tr(" (cached)") : QString())
                              .arg(result.warningCount()));
    } else {
        m_status->setText(tr("Compilation failed: %n error(s)", nullptr, result.errorCount()));
        m_tabs->setCurrentIndex(0);
    }
    Q_EMIT compiled(result);
}

void ProfileArea::jumpToDiagnostic(QTreeWidgetItem* item) {
    if (!item)
        return;
    m_editor->goToLine(item->data(0, kLineRole).toInt(), item->data(0, kColumnRole).toInt());
}

} // namespace dice
