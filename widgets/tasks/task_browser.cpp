// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/tasks/task_browser.h"

#include "widgets/editor/code_editor.h"
#include "widgets/state/workbench_state.h"
#include "widgets/tasks/suite_evaluation_dialog.h"
#include "widgets/tasks/task_model.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace dice {

namespace {

QString shapeText(const Task& task, const TensorSpec& spec) {
    QStringList dims;
    for (const auto& d : spec.shape)
        dims << QString::fromStdString(d.text);
    QString text = QStringLiteral("%1: %2[%3]")
                       .arg(QString::fromStdString(spec.name),
                            QString::fromStdString(toString(spec.dtype)), dims.join(", "));
    for (const char* preset : {"small", "bench"}) {
        if (!task.hasPreset(preset))
            continue;
        QStringList sizes;
        for (auto v : task.shape(spec, preset))
            sizes << QString::number(v);
        text += QStringLiteral(" · %1 [%2]").arg(QString::fromLatin1(preset), sizes.join(", "));
    }
    return text;
}

} // namespace

TaskBrowser::TaskBrowser(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_model(new TaskModel(this))
    , m_proxy(new QSortFilterProxyModel(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);

    m_filter = new QLineEdit(this);
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        // Only the user picks the current task: the filter hides rows, and the current task
        // stays current (and highlighted while it is shown) whatever it hides.
        m_filtering = true;
        m_proxy->setFilterFixedString(text);
        layoutRows();
        const Task* task = m_state->currentTask();
        const QModelIndex shown =
            task ? m_proxy->mapFromSource(sourceIndexOf(QString::fromStdString(task->name)))
                 : QModelIndex();
        if (shown.isValid()) {
            m_view->setCurrentIndex(shown);
        } else {
            m_view->selectionModel()->clearCurrentIndex();
            m_view->clearSelection();
        }
        m_filtering = false;
    });

    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    // Names as wide as they are; titles take the rest of the dock, elided with their full text in
    // the tooltip, so that the list never scrolls sideways and no title is cut without a mark.
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(TaskModel::NameColumn, QHeaderView::Interactive);
    m_view->header()->setSectionResizeMode(TaskModel::TitleColumn, QHeaderView::Stretch);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setColumnHidden(TaskModel::FamilyColumn, true);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &TaskBrowser::onSelectionChanged);

    m_evaluateSuite = new QPushButton(this);
    m_evaluateSuite->setObjectName(QStringLiteral("EvaluateSuiteButton"));
    connect(m_evaluateSuite, &QPushButton::clicked, this, [this] {
        SuiteEvaluationDialog* dialog = suiteEvaluationDialog();
        dialog->show();
        dialog->raise();
        dialog->activateWindow();
    });

    m_heading = new QLabel(this);
    m_heading->setWordWrap(true);
    m_heading->setTextFormat(Qt::RichText);
    m_details = new QTextBrowser(this);
    m_reference = new CodeEditor(this);
    m_reference->setLanguage(CodeEditor::Language::Python);
    m_reference->setReadOnly(true);
    m_module = new CodeEditor(this);
    m_module->setLanguage(CodeEditor::Language::Python);
    m_module->setReadOnly(true);
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_details, QString());
    m_tabs->addTab(m_reference, QString());
    m_tabs->addTab(m_module, QString());

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_heading);
    lowerLayout->addWidget(m_tabs, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    auto* upper = new QWidget(this);
    auto* upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addWidget(m_filter);
    upperLayout->addWidget(m_view, 1);
    upperLayout->addWidget(m_evaluateSuite);
    splitter->addWidget(upper);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(m_state, &WorkbenchState::suiteChanged, this, [this] {
        m_model->setTasks(m_state->suite().tasks);
        layoutRows();
    });
    connect(m_state, &WorkbenchState::currentTaskChanged, this, &TaskBrowser::showCurrentTask);
    m_model->setTasks(m_state->suite().tasks);
    layoutRows();
    retranslate();
    showCurrentTask();
}

void TaskBrowser::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void TaskBrowser::retranslate() {
    m_filter->setPlaceholderText(tr("Filter tasks"));
    m_evaluateSuite->setText(tr("Evaluate the Suite…"));
    m_evaluateSuite->setToolTip(
        tr("Score every task with a folder of candidates, as dice eval --suite does"));
    m_tabs->setTabText(0, tr("Description"));
    m_tabs->setTabText(1, tr("Reference"));
    m_tabs->setTabText(2, tr("PyTorch module"));
    m_model->setTasks(m_state->suite().tasks);
    layoutRows();
    showCurrentTask();
}

void TaskBrowser::layoutRows() {
    // A level's label spans the row; the name column is as wide as the names under it.
    int widest = 0;
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        m_view->setFirstColumnSpanned(row, QModelIndex(), true);
        const QModelIndex level = m_proxy->index(row, 0);
        for (int task = 0; task < m_proxy->rowCount(level); ++task)
            widest =
                std::max(widest, m_view->sizeHintForIndex(m_proxy->index(task, 0, level)).width());
    }
    // A task sits one level in, after the root's decoration: two indentations.
    m_view->setColumnWidth(TaskModel::NameColumn, widest + 2 * m_view->indentation() + 8);
    m_view->expandAll();
}

SuiteEvaluationDialog* TaskBrowser::suiteEvaluationDialog() {
    if (!m_suiteDialog)
        m_suiteDialog = new SuiteEvaluationDialog(m_state, this);
    return m_suiteDialog;
}

QModelIndex TaskBrowser::sourceIndexOf(const QString& name) const {
    for (int level = 0; level < m_model->rowCount(); ++level) {
        const QModelIndex parent = m_model->index(level, 0);
        for (int row = 0; row < m_model->rowCount(parent); ++row) {
            const QModelIndex index = m_model->index(row, 0, parent);
            if (index.data(TaskModel::TaskNameRole).toString() == name)
                return index;
        }
    }
    return {};
}

bool TaskBrowser::selectTask(const QString& name) {
    const QModelIndex shown = m_proxy->mapFromSource(sourceIndexOf(name));
    if (!shown.isValid())
        return false;
    m_view->setCurrentIndex(shown);
    return true;
}

void TaskBrowser::onSelectionChanged() {
    if (m_filtering)
        return;
    const QModelIndex index = m_proxy->mapToSource(m_view->currentIndex());
    const QString name = index.data(TaskModel::TaskNameRole).toString();
    if (!name.isEmpty())
        m_state->setCurrentTask(name);
}

void TaskBrowser::showCurrentTask() {
    const Task* task = m_state->currentTask();
    if (!task) {
        m_heading->setText(tr("<i>Select a task to see its description and reference.</i>"));
        m_details->clear();
        m_reference->setText(QString());
        m_module->setText(QString());
        return;
    }
    m_heading->setText(QStringLiteral("<b>%1</b> · %2")
                           .arg(QString::fromStdString(task->title).toHtmlEscaped(),
                                TaskModel::levelName(task->level).toHtmlEscaped()));
    QString html =
        QStringLiteral("<p>%1</p>").arg(QString::fromStdString(task->description).toHtmlEscaped());
    html += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Inputs").toHtmlEscaped());
    for (const auto& spec : task->inputs)
        html += QStringLiteral("<li><tt>%1</tt></li>").arg(shapeText(*task, spec).toHtmlEscaped());
    html += QStringLiteral("</ul>");
    if (!task->parameters.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Parameters").toHtmlEscaped());
        for (const auto& spec : task->parameters)
            html +=
                QStringLiteral("<li><tt>%1</tt></li>").arg(shapeText(*task, spec).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    const Tolerance fp32 = task->tolerance(DType::Float32);
    html += QStringLiteral("<p>%1</p>")
                .arg(tr("Tolerance (float32): atol %1, rtol %2")
                         .arg(fp32.atol)
                         .arg(fp32.rtol)
                         .toHtmlEscaped());
    m_details->setHtml(html);
    m_reference->setText(QString::fromStdString(task->reference));
    m_module->setText(QString::fromStdString(task->pytorchModule));
}

QString TaskBrowser::detailsText() const {
    return m_heading->text() + "\n" + m_details->toPlainText();
}

QString TaskBrowser::referenceText() const {
    return m_reference->text();
}

} // namespace dice
