// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/run_history.h"

#include "widgets/profile/evaluation_view.h"
#include "widgets/profile/run_model.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace dice {

RunHistory::RunHistory(QWidget* parent)
    : QWidget(parent) {
    m_task = new QComboBox(this);
    m_order = new QComboBox(this);
    m_model = new RunModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(RunModel::SortRole);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("RunTable"));
    m_table->setModel(m_sorted);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Unsorted until a header is clicked (and again on a third click): the store's order.
    m_table->horizontalHeader()->setSortIndicatorClearable(true);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    m_pin = new QPushButton(this);
    m_open = new QPushButton(this);
    m_compare = new QPushButton(this);
    m_refresh = new QPushButton(this);
    m_comparison = new QTextBrowser(this);
    m_status = new QLabel(this);
    // Two rows, so that the panel can be as narrow as the editor beside it needs.
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_task, 1);
    bar->addWidget(m_order);
    bar->addWidget(m_refresh);
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_pin);
    actions->addWidget(m_open);
    actions->addWidget(m_compare);
    actions->addStretch(1);
    m_status->setWordWrap(true);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_comparison);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addLayout(actions);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_task, &QComboBox::activated, this, &RunHistory::refresh);
    connect(m_order, &QComboBox::activated, this, [this] {
        // Choosing an order hands the order back to the store.
        m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
        refresh();
    });
    connect(m_refresh, &QPushButton::clicked, this, &RunHistory::refresh);
    connect(m_pin, &QPushButton::clicked, this, &RunHistory::pinSelected);
    connect(m_compare, &QPushButton::clicked, this, &RunHistory::compareSelected);
    connect(m_open, &QPushButton::clicked, this, [this] {
        const auto ids = selectedRuns();
        if (m_store && !ids.isEmpty())
            if (const auto run = m_store->get(ids.front()))
                Q_EMIT openRun(*run);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const int n = static_cast<int>(selectedRuns().size());
        m_pin->setEnabled(n == 1);
        m_open->setEnabled(n == 1);
        m_compare->setEnabled(n == 2);
    });
    retranslate();
}

void RunHistory::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void RunHistory::retranslate() {
    m_model->retranslate();
    const int order = m_order->currentIndex();
    m_order->clear();
    m_order->addItems({tr("Newest first"), tr("Oldest first"), tr("Fastest first"), tr("By task")});
    m_order->setCurrentIndex(order < 0 ? 0 : order);
    m_pin->setText(tr("Pin as baseline"));
    m_open->setText(tr("Open in the editor"));
    m_compare->setText(tr("Compare two"));
    m_refresh->setText(tr("Refresh"));
    m_comparison->setPlaceholderText(tr("Select two runs and compare them side by side."));
    refresh();
}

void RunHistory::setStore(RunStore* store, const QString& problem) {
    m_store = store;
    m_problem = problem;
    refresh();
}

void RunHistory::setTaskFilter(const QString& task) {
    const int index = m_task->findData(task);
    if (index >= 0)
        m_task->setCurrentIndex(index);
    refresh();
}

void RunHistory::refresh() {
    const QList<qint64> selected = selectedRuns();
    m_pin->setEnabled(false);
    m_open->setEnabled(false);
    m_compare->setEnabled(false);
    if (!m_store) {
        m_model->clear();
        m_status->setText(m_problem.isEmpty() ? tr("No run store.")
                                              : tr("No run history: %1").arg(m_problem));
        return;
    }
    std::vector<RunRecord> all;
    try {
        all = m_store->list();
    } catch (const std::exception& e) {
        m_model->clear();
        m_status->setText(QString::fromStdString(e.what()));
        return;
    }
    const QString filter = m_task->currentData().toString();
    QSet<QString> tasks;
    for (const auto& run : all)
        tasks.insert(QString::fromStdString(run.task));
    QStringList names(tasks.begin(), tasks.end());
    names.sort();
    {
        const QSignalBlocker blocker(m_task);
        m_task->clear();
        m_task->addItem(tr("All tasks"), QString());
        for (const QString& name : names)
            m_task->addItem(name, name);
        m_task->setCurrentIndex(std::max(0, m_task->findData(filter)));
    }
    RunQuery query;
    query.task = m_task->currentData().toString().toStdString();
    query.order = static_cast<RunQuery::Order>(std::max(0, m_order->currentIndex()));
    const auto runs = m_store->list(query);
    m_model->setRuns(runs);
    m_status->setText(tr("%n run(s)", nullptr, static_cast<int>(runs.size())));
    selectRuns(selected);
}

QList<qint64> RunHistory::shownRuns() const {
    QList<qint64> ids;
    for (int row = 0; row < m_sorted->rowCount(); ++row)
        ids << m_sorted->index(row, 0).data(RunModel::RunIdRole).toLongLong();
    return ids;
}

QList<qint64> RunHistory::selectedRuns() const {
    QList<qint64> ids;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        ids << index.data(RunModel::RunIdRole).toLongLong();
    return ids;
}

void RunHistory::selectRuns(const QList<qint64>& ids) {
    m_table->clearSelection();
    for (int row = 0; row < m_sorted->rowCount(); ++row) {
        const QModelIndex index = m_sorted->index(row, 0);
        if (ids.contains(index.data(RunModel::RunIdRole).toLongLong()))
            m_table->selectionModel()->select(index, QItemSelectionModel::Select |
                                                         QItemSelectionModel::Rows);
    }
}

bool RunHistory::pinSelected() {
    const auto ids = selectedRuns();
    if (!m_store || ids.size() != 1)
        return false;
    const auto run = m_store->get(ids.front());
    if (!run)
        return false;
    m_store->pinBaseline(run->id);
    refresh();
    Q_EMIT baselineChanged(QString::fromStdString(run->task));
    return true;
}

QString RunHistory::compareSelected() {
    const auto ids = selectedRuns();
    if (!m_store || ids.size() != 2)
        return QString();
    const auto a = m_store->get(std::min(ids[0], ids[1]));
    const auto b = m_store->get(std::max(ids[0], ids[1]));
    if (!a || !b)
        return QString();
    const EvaluationResult ra = evaluationFromJson(a->result);
    const EvaluationResult rb = evaluationFromJson(b->result);
    auto cell = [](const QString& s) {
        return QStringLiteral("<td>%1</td>").arg(s.toHtmlEscaped());
    };
    auto row = [&](const QString& name, const QString& x, const QString& y) {
        return QStringLiteral("<tr><th align=left>%1</th>%2%3</tr>")
            .arg(name.toHtmlEscaped(), cell(x), cell(y));
    };
    auto time = [](const std::optional<TimingStats>& t) {
        return t ? QString::number(t->medianMs, 'f', 4) : QString();
    };
    QString html = QStringLiteral("<table cellpadding=3><tr><th></th><th>%1</th><th>%2</th></tr>")
                       .arg(tr("Run %1").arg(a->id), tr("Run %1").arg(b->id));
    html += row(tr("Task"), QString::fromStdString(a->task), QString::fromStdString(b->task));
    html += row(tr("When (UTC)"), QString::fromStdString(a->createdAt),
                QString::fromStdString(b->createdAt));
    html += row(tr("Verdict"), EvaluationView::verdictSentence(ra),
                EvaluationView::verdictSentence(rb));
    html += row(tr("Median time (ms)"), time(ra.candidateTime), time(rb.candidateTime));
    html += row(tr("Reference median (ms)"), time(ra.referenceTime), time(rb.referenceTime));
    html += row(tr("Speedup"), QString::number(ra.speedup, 'f', 2),
                QString::number(rb.speedup, 'f', 2));
    html += row(tr("Compile time (ms)"), QString::number(ra.compileMs, 'f', 1),
                QString::number(rb.compileMs, 'f', 1));
    html += row(tr("Device"), QString::fromStdString(a->device), QString::fromStdString(b->device));
    html += row(tr("Driver"), QString::fromStdString(a->driver), QString::fromStdString(b->driver));
    if (ra.candidateTime && rb.candidateTime && ra.candidateTime->medianMs > 0)
        html += row(tr("Run %1 against run %2").arg(b->id).arg(a->id), QString(),
                    QStringLiteral("%1×").arg(ra.candidateTime->medianMs /
                                                  std::max(1e-12, rb.candidateTime->medianMs),
                                              0, 'f', 3));
    html += QStringLiteral("</table>");
    m_comparison->setHtml(html);
    return html;
}

} // namespace dice
