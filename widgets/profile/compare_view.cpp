// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/compare_view.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include <map>
#include <set>

namespace dice {

namespace {

QPlainTextEdit* diffView(QWidget* parent) {
    auto* view = new QPlainTextEdit(parent);
    view->setReadOnly(true);
    view->setLineWrapMode(QPlainTextEdit::NoWrap);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return view;
}

int edits(const std::vector<DiffLine>& diff, DiffLine::Kind kind) {
    int n = 0;
    for (const auto& line : diff)
        n += line.kind == kind ? 1 : 0;
    return n;
}

// "32", "32 → 40 (+8)", or "—" for a kernel one side lacks.
QString change(const std::optional<int>& before, const std::optional<int>& after) {
    if (!before && !after)
        return QString();
    if (!before)
        return QStringLiteral("— → %1").arg(*after);
    if (!after)
        return QStringLiteral("%1 → —").arg(*before);
    if (*before == *after)
        return QString::number(*after);
    return QStringLiteral("%1 → %2 (%3%4)")
        .arg(*before)
        .arg(*after)
        .arg(*after > *before ? QStringLiteral("+") : QString())
        .arg(*after - *before);
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_source(diffView(this))
    , m_ptx(diffView(this))
    , m_resources(new QTableWidget(this)) {
    m_summary->setWordWrap(true);
    m_resources->setColumnCount(5);
    m_resources->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_resources->verticalHeader()->hide();
    m_resources->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tabs->addTab(m_source, QString());
    m_tabs->addTab(m_ptx, QString());
    m_tabs->addTab(m_resources, QString());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    retranslate();
    refresh();
}

void CompareView::setBaseline(const QString& label, const QString& source,
                              const CompileResult& compiled) {
    m_baseline = Side{label, source, compiled};
    refresh();
}

void CompareView::clearBaseline() {
    m_baseline.reset();
    refresh();
}

void CompareView::setCurrent(const QString& source, const CompileResult& compiled) {
    m_current = Side{QString(), source, compiled};
    refresh();
}

QString CompareView::summary() const {
    return m_summary->text();
}

void CompareView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void CompareView::retranslate() {
    m_tabs->setTabText(0, tr("Source"));
    m_tabs->setTabText(1, tr("PTX"));
    m_tabs->setTabText(2, tr("Resources"));
    m_resources->setHorizontalHeaderLabels(
        {tr("Kernel"), tr("Registers"), tr("Shared bytes"), tr("Stack bytes"), tr("Spill bytes")});
    refresh();
}

void CompareView::showDiff(QPlainTextEdit* view, const std::vector<DiffLine>& diff) {
    QString text;
    for (const auto& line : diff) {
        const char* mark = line.kind == DiffLine::Kind::Removed ? "- "
                           : line.kind == DiffLine::Kind::Added ? "+ "
                                                                : "  ";
        text += QLatin1String(mark) + QString::fromStdString(line.text) + QLatin1Char('\n');
    }
    view->setPlainText(text);
    // Removed lines on red, added on green: the colours every diff viewer uses.
    QList<QTextEdit::ExtraSelection> marks;
    QTextBlock block = view->document()->firstBlock();
    for (const auto& line : diff) {
        if (!block.isValid())
            break;
        if (line.kind != DiffLine::Kind::Same) {
            QTextEdit::ExtraSelection mark;
            mark.format.setBackground(line.kind == DiffLine::Kind::Removed ? QColor(255, 220, 220)
                                                                           : QColor(220, 255, 220));
            mark.format.setProperty(QTextFormat::FullWidthSelection, true);
            mark.cursor = QTextCursor(block);
            marks.append(mark);
        }
        block = block.next();
    }
    view->setExtraSelections(marks);
}

void CompareView::refresh() {
    m_sourceDiff.clear();
    m_ptxDiff.clear();
    m_resources->setRowCount(0);
    if (!m_baseline || !m_current) {
        m_summary->setText(!m_baseline ? tr("Pin a run of this task in History as its baseline to "
                                            "compare the editor's candidate with it.")
                                       : tr("Compile the editor's candidate to compare it."));
        m_source->clear();
        m_ptx->clear();
        return;
    }
    m_sourceDiff = diffLines(m_baseline->source.toStdString(), m_current->source.toStdString());
    m_ptxDiff = diffLines(m_baseline->compiled.ptx, m_current->compiled.ptx);
    showDiff(m_source, m_sourceDiff);
    showDiff(m_ptx, m_ptxDiff);

    std::map<std::string, const ResourceUsage*> before;
    std::map<std::string, const ResourceUsage*> after;
    std::set<std::string> kernels;
    for (const auto& r : m_baseline->compiled.resources) {
        before[r.function] = &r;
        kernels.insert(r.function);
    }
    for (const auto& r : m_current->compiled.resources) {
        after[r.function] = &r;
        kernels.insert(r.function);
    }
    const auto field = [](const std::map<std::string, const ResourceUsage*>& side,
                          const std::string& kernel, int ResourceUsage::*member) {
        const auto it = side.find(kernel);
        return it == side.end() ? std::optional<int>() : std::optional<int>(it->second->*member);
    };
    for (const auto& kernel : kernels) {
        const int row = m_resources->rowCount();
        m_resources->insertRow(row);
        m_resources->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(kernel)));
        int column = 1;
        for (int ResourceUsage::*member :
             {&ResourceUsage::registers, &ResourceUsage::sharedBytes,
              &ResourceUsage::stackFrameBytes, &ResourceUsage::spillStoreBytes})
            m_resources->setItem(row, column++,
                                 new QTableWidgetItem(change(field(before, kernel, member),
                                                             field(after, kernel, member))));
    }
    m_summary->setText(
        tr("Against %1: source %2 lines removed, %3 added; PTX %4 removed, %5 added.")
            .arg(m_baseline->label)
            .arg(edits(m_sourceDiff, DiffLine::Kind::Removed))
            .arg(edits(m_sourceDiff, DiffLine::Kind::Added))
            .arg(edits(m_ptxDiff, DiffLine::Kind::Removed))
            .arg(edits(m_ptxDiff, DiffLine::Kind::Added)));
}

} // namespace dice
